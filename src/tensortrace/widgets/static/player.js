// tensortrace TimelinePlayer: steps through a replay payload (tensortrace/replay/payload.py)
// entirely in the browser. The same module runs as an anywidget front end (default export) and
// inline in a standalone HTML page (mount + standaloneModel). No network access, no imports.
// This file is part 4 of 4: widgets/player.py concatenates replay.js, draw.js, values.js and
// this file into the one module.

const LAYERS = ["python", "dispatch", "autograd", "native", "kernel", "allocator", "refcount"];

function legendHtml() {
  const layers = LAYERS.map((l) =>
    `<span class="tt-key tt-layer-${l}"><span class="tt-swatch"></span>${l}</span>`).join("");
  const blocks = [["tt-live", "allocated"], ["tt-freed", "freed"], ["tt-future", "not yet allocated"]]
    .map(([c, t]) => `<span class="tt-key"><svg width="22" height="12" class="${c}-key"><rect x="1" y="1" width="20" height="10" rx="2"></rect></svg>${t}</span>`).join("");
  return `<details class="tt-legend"><summary>legend</summary>` +
    `<div><b>layers</b> ${layers}</div>` +
    `<div><b>memory map</b> ${blocks} <span class="tt-key"><span class="tt-now-key"></span>this step</span></div>` +
    `<div><b>objects</b> <span class="tt-key">dashed TensorImpl: a view, its dashed edge to its base</span>` +
    `<span class="tt-key"><span class="tt-changed-key"></span>touched by this step</span></div>` +
    `<div><b>keys</b> ← → step · Home End · PgUp PgDn line · Space play · ` +
    `F11 / i into · F10 / o over · Shift+F11 / u out · / search · Esc leave</div></details>`;
}

// The presenter's keys: in the deck, the player passes them to reveal.js in the parent page.
function isPresenterKey(e) {
  return ["PageDown", "PageUp", "Escape", " "].includes(e.key) ||
    (e.key.startsWith("Arrow") && (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey));
}

// ---- the player UI ----------------------------------------------------------------------------
export function mount(el, model, options = {}) {
  const replay = createReplay(model.get("payload"));
  const presentation = Boolean(options.presentation || model.get("presentation"));
  const inDeck = Boolean(options.deck);
  const root = document.createElement("div");
  root.className = "tt-player" + (presentation ? " tt-presentation" : "");
  root.tabIndex = 0;
  // JupyterLab (Lumino) runs no keyboard shortcut for a key typed inside this element
  root.setAttribute("data-lm-suppress-shortcuts", "true");
  const navButtons = NAV_KINDS.map((k) =>
    `<span class="tt-nav"><button data-prev="${k}" title="previous ${NAV_LABELS[k]}">◀</button>` +
    `<span>${NAV_LABELS[k]}</span><button data-next="${k}" title="next ${NAV_LABELS[k]}">▶</button></span>`).join("");
  // the statements' ticks under the slider, drawn once as one path: a <datalist> of ticks made
  // Chromium lay the slider out again at each value (most of a step's time at 100k events)
  const span = Math.max(1, replay.n - 1);
  const ticks = (replay.payload.nav.statement || []).slice(0, 400)
    .map((s) => `M${((s / span) * 1000).toFixed(1)} 0V4`).join("");
  root.innerHTML =
    `<div class="tt-bar"><button data-act="first" title="first step (Home)">|◀</button>` +
    `<button data-act="back" title="step back (←)">◀</button>` +
    `<button data-act="play" class="tt-play" title="play / pause (space)">▶ play</button>` +
    `<button data-act="fwd" title="step forward (→)">▶</button>` +
    `<button data-act="last" title="last step (End)">▶|</button>` +
    `<span class="tt-track"><input type="range" class="tt-slider" min="0" max="${replay.n - 1}" value="0" aria-label="step">` +
    `<svg class="tt-ticks" viewBox="0 0 1000 4" preserveAspectRatio="none" aria-hidden="true"><path d="${ticks}"></path></svg></span>` +
    `<span class="tt-count"></span>` +
    `<select class="tt-speed" title="events per tick"><option value="1">1×</option>` +
    `<option value="5">5×</option><option value="25">25×</option></select></div>` +
    `<div class="tt-bar tt-navbar">${navButtons}` +
    `<span class="tt-nav tt-debug"><button data-act="into" title="step into: the next call (F11, i)">↘ into</button>` +
    `<button data-act="over" title="step over this call (F10, o)">↷ over</button>` +
    `<button data-act="out" title="step out of this function (Shift+F11, u)">↗ out</button></span>` +
    `<input type="search" class="tt-search" placeholder="search: function, op or step" aria-label="search"></div>` +
    `<div class="tt-event"></div>` +
    `<div class="tt-grid"><div class="tt-col-left">` +
    `<section><h4>equivalent code</h4><pre class="tt-code"></pre></section>` +
    `<section><h4>call stack</h4><div class="tt-stack"></div></section>` +
    `<section class="tt-engine-box" hidden><h4>autograd engine (backward pass)</h4><div class="tt-engine tt-counterpart"></div></section>` +
    `<section class="tt-counterpart-box"><h4>PyTorch counterpart</h4><div class="tt-counterpart"></div></section>` +
    `</div><div class="tt-col-right">` +
    `<section><h4>objects: handle → TensorImpl → StorageImpl → DataPtr</h4><div class="tt-graph-box"></div></section>` +
    `<section class="tt-values-section"><h4>values and storage (click a TensorImpl)</h4><div class="tt-values-box"></div></section>` +
    `<section class="tt-memory-section"><h4>memory map</h4><div class="tt-memory-box"></div></section>` +
    `</div></div>` + legendHtml();
  el.appendChild(root);
  const $ = (sel) => root.querySelector(sel);
  const slider = $(".tt-slider");
  const code = $(".tt-code");
  const stackBox = $(".tt-stack");
  const search = $(".tt-search");
  // The code panel is virtual: a spacer as tall as every line, and only the lines in view (plus
  // a margin) in the DOM, so a 100k-event trace's thousands of lines cost what a screenful does.
  const codeLines = replay.payload.code;
  const MARGIN = 20;
  let lineH = 0, here = -1, drawn = "";
  if (!codeLines.length) code.innerHTML = '<div class="tt-empty">no Python binding calls in this trace</div>';
  else code.innerHTML = '<div class="tt-code-spacer"><div class="tt-code-window"></div></div>';
  const spacer = $(".tt-code-spacer"), win = $(".tt-code-window");
  function lineHeight() {
    if (!lineH && win) {
      win.innerHTML = lineHtml(codeLines[0], 0, -1);
      lineH = win.firstChild.getBoundingClientRect().height; // 0 while not in the page yet
      spacer.style.height = lineH ? `${codeLines.length * lineH}px` : "";
      drawn = "";
    }
    return lineH;
  }
  let shownFirst = 0; // the index of the window's first line
  function drawLines() {
    if (!win) return;
    const h = lineHeight();
    const view = codeView || 230;
    const first = h ? Math.max(0, Math.floor(codeTop / h) - MARGIN) : 0;
    const last = h ? Math.min(codeLines.length, Math.ceil((codeTop + view) / h) + MARGIN)
      : Math.min(codeLines.length, 2 * MARGIN);
    const key = `${first}:${last}`;
    if (key === drawn) return;
    drawn = key;
    shownFirst = first;
    win.style.top = `${first * h}px`;
    let html = "";
    for (let i = first; i < last; i++) html += lineHtml(codeLines[i], i, here);
    win.innerHTML = html;
  }
  // moving the mark touches two lines, not the window
  function moveMark(from, to) {
    const old = win && win.children[from - shownFirst];
    if (old && from >= 0) {
      old.classList.remove("tt-here");
      const mark = old.querySelector(".tt-here-mark");
      if (mark) mark.remove();
    }
    const line = win && win.children[to - shownFirst];
    if (line && to >= 0 && Number(line.dataset.line) === to) {
      line.classList.add("tt-here");
      line.insertAdjacentHTML("beforeend", '<span class="tt-here-mark">  # &lt;--- here</span>');
    }
  }
  // the code box's scroll position and height, kept from events so that stepping reads no
  // layout (each read after a DOM change would force one)
  let codeTop = 0, codeView = 0;
  code.addEventListener("scroll", () => { codeTop = code.scrollTop; drawLines(); }, { passive: true });
  if (typeof ResizeObserver !== "undefined") {
    // also when the player is first attached (a widget renders before it is in the page)
    new ResizeObserver(() => {
      codeView = code.clientHeight; lineH = 0; follow(); drawLines();
    }).observe(code);
  }
  // a trace with a backward pass gets the engine's panel, at every step (a stable height)
  const hasEngine = replay.payload.sites.some((site) => String(site[1]).startsWith(EVALUATE));
  $(".tt-engine-box").hidden = !hasEngine;
  let timer = null;
  let picked = null; // the TensorImpl the values panel follows, once the user clicks one

  // keep the `here` line in view, inside the code box only (scrollIntoView would move the page)
  function follow() {
    const h = lineHeight();
    if (here < 0 || !h) return;
    const top = here * h, bottom = top + h, view = codeView || 230;
    if (top < codeTop || bottom > codeTop + view) {
      codeTop = Math.max(0, Math.min(top - view / 3, codeLines.length * h - view));
      code.scrollTop = codeTop;
    }
  }
  function markHere(step) {
    const i = replay.hereAt(step);
    if (i === here) return;
    const before = here;
    here = i;
    follow();
    const key = drawn;
    drawLines(); // a new window draws the mark itself
    if (drawn === key) moveMark(before, i);
  }
  // each panel is redrawn only when what it shows changed (its key), so a step that only moves
  // a refcount does not rebuild the stack, the code or the memory map
  const last = {};
  function put(name, el, key, html) {
    if (last[name] === key) return false;
    last[name] = key;
    el.innerHTML = html();
    return true;
  }
  const counterpart = $(".tt-counterpart-box .tt-counterpart");
  const graphBox = $(".tt-graph-box"), memoryBox = $(".tt-memory-box"), valuesBox = $(".tt-values-box");
  const aggregate = (curves.get(replay) || allocatedCurve(replay)).aggregate;
  const byStep = (a, b) => a - b;
  const allocSteps = replay.payload.blocks.map((b) => b[2]).sort(byStep);
  const freeSteps = replay.payload.blocks.filter((b) => b[3] != null).map((b) => b[3]).sort(byStep);
  let tables = null, tablesVersion = -1;
  function show(step) {
    step = replay.clamp(step);
    // the code box scrolls first: writing scrollTop after other writes would force a layout
    markHere(step);
    slider.value = String(step);
    $(".tt-count").textContent = `step ${step} / ${replay.n - 1}`;
    const ev = replay.eventAt(step);
    const evEl = $(".tt-event");
    evEl.textContent = ev.text;
    evEl.className = `tt-event tt-layer-${ev.layer}`;
    const chain = replay.stackAt(step);
    const top = chain.length ? chain[chain.length - 1] : -1;
    // the box is a column-reverse flexbox: it stays scrolled to its end, the innermost frame,
    // with no scroll position to read or write (a forced layout per step)
    put("stack", stackBox, chain.join(","), () => stackHtml(replay, step));
    put("counterpart", counterpart, top, () => counterpartHtml(replay, step));
    if (hasEngine) put("engine", $(".tt-engine"), top, () => engineHtml(replay, step));
    const version = replay.version(step);
    if (version !== tablesVersion) { tables = replay.tablesAt(step); tablesVersion = version; }
    const tensor = pickTensor(replay, step, tables, picked);
    // the graph changes with its tables, with this step's highlights and with the selection
    const touches = replay.touched(step).size > 0;
    put("graph", graphBox, `${version}:${touches ? step : ""}:${tensor}`,
      () => objectGraphSvg(replay, step, tables, tensor));
    const v = tensor == null ? null : replay.valuesAt(tensor, tables.t[tensor].storage, step);
    const row = tensor == null ? null : tables.t[tensor];
    put("values", valuesBox, tensor == null ? "none" : JSON.stringify([tensor, v.textStep,
      v.elementsStep, v.nextTextStep, row.sizes, row.strides, row.offset, row.dtype]),
      () => valuesHtml(replay, step, tables, tensor));
    // the maps are redrawn only when a block changes state (an alloc or a free at or before
    // this step); otherwise only their `now` line moves. Segments change at more events.
    const segments = (replay.payload.segments || []).length > 0;
    const memKey = segments ? step : aggregate ? "aggregate"
      : `${countAtOrBefore(allocSteps, step)}:${countAtOrBefore(freeSteps, step)}`;
    if (!put("memory", memoryBox, memKey, () => memoryMapSvg(replay, step))) {
      const now = memoryBox.querySelector(".tt-now");
      const x = nowX(replay, step);
      if (now) { now.setAttribute("x1", x); now.setAttribute("x2", x); }
      if (aggregate) {
        put("memory-total", memoryBox.querySelector(".tt-col"), step,
          () => esc(allocatedCurveTitle(replay, step)));
      }
    } else {
      last["memory-total"] = undefined;
    }
    root.dataset.step = String(step);
    if (options.onShow) options.onShow(step);
  }
  function go(step) {
    if (step === null || step === undefined) return;
    step = replay.clamp(step);
    if (step !== model.get("step")) {
      model.set("step", step); // the change:step handler redraws
      model.save_changes();
    } else {
      show(step);
    }
  }
  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    $(".tt-play").textContent = "▶ play";
  }
  function play() {
    if (model.get("step") >= replay.n - 1) go(0);
    $(".tt-play").textContent = "❚❚ pause";
    timer = setInterval(() => {
      const s = model.get("step") + Number($(".tt-speed").value);
      if (s >= replay.n - 1) { go(replay.n - 1); stop(); } else go(s);
    }, 60);
  }
  const debug = { into: replay.stepInto, over: replay.stepOver, out: replay.stepOut };
  root.addEventListener("click", (e) => {
    const b = e.target.closest("button");
    const frame = e.target.closest(".tt-frame");
    const line = e.target.closest(".tt-line");
    if (b) {
      const step = model.get("step");
      const act = b.dataset.act;
      if (act === "play") { timer === null ? play() : stop(); return; }
      stop();
      if (act === "first") go(0);
      else if (act === "last") go(replay.n - 1);
      else if (act === "back") go(step - 1);
      else if (act === "fwd") go(step + 1);
      else if (debug[act]) go(debug[act](step));
      else if (b.dataset.next) go(replay.next(b.dataset.next, step));
      else if (b.dataset.prev) go(replay.prev(b.dataset.prev, step));
    } else if (e.target.closest("[data-tensor]")) {
      picked = Number(e.target.closest("[data-tensor]").dataset.tensor);
      show(model.get("step"));
    } else if (frame) { stop(); go(Number(frame.dataset.begin)); }
    else if (line) { stop(); go(Number(line.dataset.start)); }
  });
  slider.addEventListener("input", () => { stop(); go(Number(slider.value)); });
  search.addEventListener("keydown", (e) => {
    e.stopPropagation(); // typing here is text, never a player or notebook shortcut
    if (e.key === "Enter") {
      const found = replay.search(search.value, model.get("step"));
      search.classList.toggle("tt-notfound", found === null);
      if (found !== null) { stop(); go(found); }
      e.preventDefault();
    } else if (e.key === "Escape") { search.blur(); root.focus(); }
  });
  const keys = {
    ArrowRight: (s) => s + 1, ArrowLeft: (s) => s - 1, Home: () => 0, End: () => replay.n - 1,
    PageDown: (s) => replay.next("statement", s), PageUp: (s) => replay.prev("statement", s),
    F11: (s, e) => (e.shiftKey ? replay.stepOut(s) : replay.stepInto(s)), F10: replay.stepOver,
    i: replay.stepInto, o: replay.stepOver, u: replay.stepOut,
  };
  root.addEventListener("keydown", (e) => {
    if (e.target === search) return;
    if (inDeck && isPresenterKey(e)) {
      // the presenter's keys belong to the deck: hand them to reveal.js in the parent page
      window.parent.postMessage({ type: "tensortrace-key", key: e.key, shiftKey: e.shiftKey,
        altKey: e.altKey, ctrlKey: e.ctrlKey, metaKey: e.metaKey }, "*");
      e.preventDefault();
      return;
    }
    if (e.key === "Tab") return; // leaving the player works as everywhere
    if (e.key === "Escape") { root.blur(); return; }
    e.stopPropagation(); // while the player has focus, its keys are its own
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const step = model.get("step");
    if (e.key === " ") { timer === null ? play() : stop(); e.preventDefault(); }
    else if (e.key === "/") { search.focus(); e.preventDefault(); }
    else if (keys[e.key]) { stop(); go(keys[e.key](step, e)); e.preventDefault(); }
  });
  const onStep = () => show(model.get("step"));
  model.on("change:step", onStep);
  show(model.get("step"));
  return () => { stop(); model.off && model.off("change:step", onStep); };
}

// A stand-in for the anywidget model, for the exported page: same get/set/on/save_changes.
export function standaloneModel(payload, step) {
  const state = { payload, step: step || 0 };
  const handlers = {};
  return {
    get: (k) => state[k],
    set: (k, v) => { state[k] = v; (handlers["change:" + k] || []).forEach((h) => h()); },
    on: (ev, h) => { (handlers[ev] = handlers[ev] || []).push(h); },
    off: (ev, h) => { handlers[ev] = (handlers[ev] || []).filter((x) => x !== h); },
    save_changes: () => {},
  };
}

export default {
  render({ model, el }) {
    return mount(el, model);
  },
};
