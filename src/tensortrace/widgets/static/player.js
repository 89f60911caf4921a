// tensortrace TimelinePlayer: steps through a replay payload (tensortrace/replay/payload.py)
// entirely in the browser. The same module runs as an anywidget front end (default export) and
// inline in a standalone HTML page (mount + standaloneModel). No network access, no imports.

const TABLES = ["h", "t", "s", "g"];
export const NAV_KINDS = ["statement", "dispatch", "kernel", "alloc", "free"];
const NAV_LABELS = {
  statement: "line", dispatch: "aten:: op", kernel: "kernel", alloc: "alloc", free: "free",
};

// ---- the replay: pure functions over the payload, no DOM (tested under node) --------------
export function createReplay(payload) {
  if (payload.format !== "tensortrace-replay" || payload.version !== 1) {
    throw new Error("not a tensortrace replay payload (version 1)");
  }
  const n = payload.n;
  const ph = payload.ph;
  const frames = payload.frames;
  const deltas = payload.deltas;
  const K = payload.checkpoint_every || 256;
  const innermost = new Int32Array(n);
  const ordinal = new Int32Array(n); // B: its frame; i: its instant; E: the frame it closes
  const stack = [];
  let nextFrame = 0;
  let nextInstant = 0;
  for (let i = 0; i < n; i++) {
    const c = ph[i];
    if (c === "B") {
      ordinal[i] = nextFrame;
      stack.push(nextFrame++);
    } else if (c === "E") {
      ordinal[i] = -1;
      while (stack.length) {
        const f = stack.pop();
        if (frames[f][2] === i) { ordinal[i] = f; break; }
      }
    } else {
      ordinal[i] = nextInstant++;
    }
    innermost[i] = stack.length ? stack[stack.length - 1] : -1;
  }
  const deltaStart = new Int32Array(n + 1);
  let d = 0;
  for (let i = 0; i < n; i++) {
    deltaStart[i] = d;
    while (d < deltas.length && deltas[d][0] === i) d++;
  }
  deltaStart[n] = d;

  const empty = () => ({ h: {}, t: {}, s: {}, g: {} });
  const copy = (tables) => {
    const out = {};
    for (const name of TABLES) {
      const rows = {};
      for (const key in tables[name]) rows[key] = Object.assign({}, tables[name][key]);
      out[name] = rows;
    }
    return out;
  };
  const apply = (tables, delta) => {
    const op = delta[1], rows = tables[delta[2]], key = delta[3], fields = delta[4];
    if (op === "n") rows[key] = Object.assign({}, fields);
    else if (op === "u") {
      if (rows[key]) Object.assign(rows[key], fields);
      else rows[key] = Object.assign({}, fields);
    } else delete rows[key];
  };
  // checkpoints[j]: the tables before event j*K, built once while loading
  const checkpoints = [];
  {
    const tables = empty();
    checkpoints.push(copy(tables));
    for (let i = 0; i < n; i++) {
      for (let k = deltaStart[i]; k < deltaStart[i + 1]; k++) apply(tables, deltas[k]);
      if ((i + 1) % K === 0) checkpoints.push(copy(tables));
    }
  }
  const clamp = (step) => Math.max(0, Math.min(n - 1, step | 0));

  function tablesAt(step) {
    step = clamp(step);
    const j = Math.floor((step + 1) / K);
    const tables = copy(checkpoints[j]);
    for (let k = deltaStart[j * K]; k < deltaStart[step + 1]; k++) apply(tables, deltas[k]);
    return tables;
  }
  function stackAt(step) {
    const chain = [];
    for (let f = innermost[clamp(step)]; f >= 0; f = frames[f][3]) chain.push(f);
    return chain.reverse();
  }
  function frameInfo(f) {
    const fr = frames[f];
    const site = payload.sites[fr[0]] || ["?", "?", "", "", null];
    return {
      index: f, begin: fr[1], end: fr[2], parent: fr[3], args: fr[4], details: fr[5],
      outcome: fr[6], layer: site[0], name: site[1], source: site[2], symbol: site[3],
      legacy: site[4],
    };
  }
  function hereAt(step) {
    const code = payload.code;
    let lo = 0, hi = code.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (code[mid][1] < step) lo = mid + 1; else hi = mid;
    }
    return lo < code.length ? lo : -1;
  }
  function eventAt(step) {
    step = clamp(step);
    const c = ph[step];
    if (c === "i") {
      const inst = payload.instants[ordinal[step]];
      return { kind: inst[0], text: inst[1], layer: instantLayer(inst[0]) };
    }
    if (ordinal[step] < 0) return { kind: "end", text: "← (frame end)", layer: "" };
    const f = frameInfo(ordinal[step]);
    if (c === "B") return { kind: "begin", text: `→ ${f.name}(${f.args})`, layer: f.layer };
    return { kind: "end", text: `← ${f.name} ${f.outcome.startsWith("raised") ? "" : "returned "}${f.outcome}`, layer: f.layer };
  }
  function bisectRight(arr, x) {
    let lo = 0, hi = arr.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (arr[mid] <= x) lo = mid + 1; else hi = mid; }
    return lo;
  }
  function bisectLeft(arr, x) {
    let lo = 0, hi = arr.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (arr[mid] < x) lo = mid + 1; else hi = mid; }
    return lo;
  }
  function next(kind, step) {
    const steps = payload.nav[kind] || [];
    const i = bisectRight(steps, step);
    return i < steps.length ? steps[i] : null;
  }
  function prev(kind, step) {
    const steps = payload.nav[kind] || [];
    const i = bisectLeft(steps, step);
    return i > 0 ? steps[i - 1] : null;
  }
  function touched(step) {
    const out = new Set();
    step = clamp(step);
    for (let k = deltaStart[step]; k < deltaStart[step + 1]; k++) out.add(deltas[k][2] + deltas[k][3]);
    return out;
  }
  function handleName(key) {
    return payload.names[String(key)] || `_h${key}`;
  }
  return {
    n, payload, tablesAt, stackAt, frameInfo, hereAt, eventAt, next, prev, touched, handleName,
    clamp,
  };
}

function instantLayer(kind) {
  if (kind === "alloc" || kind === "free") return "allocator";
  if (["make_intrusive", "incref", "decref", "delete"].includes(kind)) return "refcount";
  if (["tensor_meta", "tensor_storage", "storage_data"].includes(kind)) return "native";
  if (kind === "view_base") return "autograd";
  return "python";
}

// ---- drawing ----------------------------------------------------------------------------------
const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
  .replace(/"/g, "&quot;");
const hex = (a) => "0x" + Number(a).toString(16);
const dimsText = (v) => "[" + (v || []).slice(0, 6).join(", ") + ((v || []).length > 6 ? ", …" : "") + "]";

function box(x, y, w, h, cls, title, badge, sub, changed) {
  return `<g class="tt-node ${cls}${changed ? " tt-changed" : ""}">` +
    `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="6"></rect>` +
    `<text x="${x + 8}" y="${y + 17}" class="tt-node-title">${esc(title)}</text>` +
    (badge ? `<text x="${x + w - 8}" y="${y + 17}" class="tt-node-badge" text-anchor="end">${esc(badge)}</text>` : "") +
    `<text x="${x + 8}" y="${y + 34}" class="tt-node-sub">${esc(sub)}</text></g>`;
}

function edge(x1, y1, x2, y2, cls) {
  const mx = (x1 + x2) / 2;
  return `<path class="tt-edge ${cls || ""}" d="M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}"></path>`;
}

// Seed 001's picture, live: each Python handle on the row of its TensorImpl, each StorageImpl
// on the row of the first TensorImpl that uses it, a view's link to its base drawn dashed.
export function objectGraphSvg(replay, step) {
  const tables = replay.tablesAt(step);
  const changed = replay.touched(step);
  const W = 168, H = 44, GAP = 14, COLS = [8, 226, 418, 610];
  const byId = (a, b) => a - b;
  const handles = Object.keys(tables.h).map(Number).sort(byId);
  const tensors = [];
  for (const k of handles) {
    const impl = tables.h[k].impl;
    if (impl != null && tables.t[impl] && !tensors.includes(impl)) tensors.push(impl);
  }
  for (const k of Object.keys(tables.t).map(Number).sort(byId)) if (!tensors.includes(k)) tensors.push(k);
  const storages = [];
  for (const k of tensors) {
    const s = tables.t[k].storage;
    if (s != null && tables.s[s] && !storages.includes(s)) storages.push(s);
  }
  for (const k of Object.keys(tables.s).map(Number).sort(byId)) if (!storages.includes(k)) storages.push(k);
  const yOf = (i) => 26 + i * (H + GAP);
  const tPos = new Map(tensors.map((k, i) => [k, yOf(i)]));
  const sPos = new Map(storages.map((k, i) => [k, yOf(i)]));
  const hPos = new Map();
  let free = 0;
  for (const k of handles) {
    const impl = tables.h[k].impl;
    const used = new Set(hPos.values());
    let y = tPos.has(impl) ? tPos.get(impl) : null;
    if (y === null || used.has(y)) { while (used.has(yOf(free))) free++; y = yOf(free); }
    hPos.set(k, y);
  }
  const rows = Math.max(tensors.length, storages.length, ...[...hPos.values()].map((y) => (y - 26) / (H + GAP) + 1), 1);
  const height = 30 + rows * (H + GAP);
  const width = COLS[3] + W + 8;
  let body = "";
  ["Python handle", "TensorImpl", "StorageImpl", "DataPtr"].forEach((h, i) => {
    body += `<text x="${COLS[i]}" y="14" class="tt-col">${h}</text>`;
  });
  let edges = "";
  for (const k of handles) {
    const row = tables.h[k];
    const y = hPos.get(k);
    body += box(COLS[0], y, W, H, "tt-handle", replay.handleName(k), "", "THPVariable", changed.has("h" + k));
    if (tPos.has(row.impl)) edges += edge(COLS[0] + W, y + H / 2, COLS[1], tPos.get(row.impl) + H / 2);
  }
  for (const k of tensors) {
    const row = tables.t[k];
    const y = tPos.get(k);
    const sub = `${dimsText(row.sizes)} ${dimsText(row.strides)} +${row.offset} ${row.dtype || ""}`;
    body += box(COLS[1], y, W, H, "tt-impl" + (row.view_of != null ? " tt-view" : ""),
      `TensorImpl#${k}`, `refcount ${row.refcount}`, sub, changed.has("t" + k));
    if (sPos.has(row.storage)) edges += edge(COLS[1] + W, y + H / 2, COLS[2], sPos.get(row.storage) + H / 2);
    if (row.view_of != null && tPos.has(row.view_of)) {
      const yb = tPos.get(row.view_of);
      const x0 = COLS[1] + 12;
      const dy = yb > y ? H : 0;
      edges += `<path class="tt-edge tt-base" d="M${x0},${y + (yb > y ? H : 0)} C${x0 - 48},${(y + yb) / 2 + H / 2} ${x0 - 48},${(y + yb) / 2 + H / 2} ${x0},${yb + H - dy}"></path>` +
        `<text class="tt-edge-label" x="${COLS[1] - 46}" y="${(y + yb) / 2 + H / 2 + 4}">base</text>`;
    }
  }
  for (const k of storages) {
    const row = tables.s[k];
    const y = sPos.get(k);
    body += box(COLS[2], y, W, H, "tt-storage", `StorageImpl#${k}`, `refcount ${row.refcount}`, `${row.nbytes} B ${row.device || ""}`, changed.has("s" + k));
    body += box(COLS[3], y, W, H, "tt-dataptr", "DataPtr", "", hex(row.addr), false);
    edges += edge(COLS[2] + W, y + H / 2, COLS[3], y + H / 2);
  }
  if (!handles.length && !tensors.length && !storages.length) {
    body += `<text x="8" y="46" class="tt-empty">no live tensors at this step</text>`;
  }
  return `<svg class="tt-graph" width="100%" style="max-width:${width}px" viewBox="0 0 ${width} ${height}">${edges}${body}</svg>`;
}

export function memoryMapSvg(replay, step) {
  const blocks = replay.payload.blocks;
  const n = replay.n;
  const addrs = [...new Set(blocks.map((b) => b[0]))].sort((a, b) => a - b);
  const lane = new Map(addrs.map((a, i) => [a, i]));
  const LEFT = 118, W = 586, LANE = 20;
  const height = 34 + Math.max(addrs.length, 1) * LANE;
  const x = (s) => LEFT + (n > 1 ? (s / (n - 1)) * (W - LEFT - 6) : 0);
  let body = "";
  addrs.forEach((a, i) => {
    body += `<text x="4" y="${24 + i * LANE + 13}" class="tt-addr">${hex(a)}</text>`;
  });
  for (const b of blocks) {
    const [addr, bytes, a, f, storage] = b;
    const end = f == null ? n - 1 : f;
    const state = a > step ? "tt-future" : (f != null && f <= step ? "tt-freed" : "tt-live");
    const y = 24 + lane.get(addr) * LANE;
    const w = Math.max(2, x(end) - x(a));
    const label = `${bytes} B${storage != null ? " · StorageImpl#" + storage : ""}`;
    body += `<g class="tt-block ${state}"><title>${esc(label)} at ${hex(addr)}: steps ${a}–${f == null ? "end" : f}</title>` +
      `<rect x="${x(a)}" y="${y + 2}" width="${w}" height="${LANE - 4}" rx="3"></rect>` +
      (w > label.length * 6.6 + 8 ? `<text x="${x(a) + 4}" y="${y + 14}">${esc(label)}</text>` : "") + `</g>`;
  }
  const tables = replay.tablesAt(step);
  const allocated = (tables.g[0] || {}).allocated || 0;
  body += `<line class="tt-now" x1="${x(step)}" x2="${x(step)}" y1="18" y2="${height - 4}"></line>`;
  body += `<text x="${LEFT}" y="12" class="tt-col">blocks by address over steps · allocated now: ${allocated} B</text>`;
  if (!blocks.length) body += `<text x="${LEFT}" y="40" class="tt-empty">no allocations in this trace</text>`;
  const map = `<svg class="tt-memory" width="100%" style="max-width:${W}px" viewBox="0 0 ${W} ${height}">${body}</svg>`;
  return (replay.payload.segments || []).length ? map + segmentsSvg(replay, step) : map;
}

// The caching allocator's segments alive at `step`, each block laid out by its offset:
// allocated, pending (a free waiting on another stream) or cached. The twin of
// replay/payload.py's decode_segments.
export function segmentsAt(replay, step) {
  const out = [];
  for (const [addr, bytes, device, pool, a, f] of replay.payload.segments || []) {
    if (!(a <= step && (f == null || step < f))) continue;
    const end = addr + bytes;
    const held = replay.payload.blocks.filter((b) => {
      if (b.length < 8 || b[5] !== device || b[0] < addr || b[0] >= end) return false;
      const done = b[6] != null ? b[6] : b[3];
      return b[2] <= step && (done == null || step < done);
    }).sort((x, y) => x[0] - y[0]);
    const blocks = [];
    let cursor = addr;
    for (const b of held) {
      if (b[0] > cursor) blocks.push([cursor - addr, b[0] - cursor, "cached", null, null]);
      const live = b[3] == null || step < b[3];
      blocks.push([b[0] - addr, b[1], live ? "allocated" : "pending", b[4], b[7]]);
      cursor = b[0] + b[1];
    }
    if (cursor < end) blocks.push([cursor - addr, end - cursor, "cached", null, null]);
    out.push([addr, bytes, device, pool, blocks]);
  }
  return out;
}

function segmentsSvg(replay, step) {
  const LEFT = 150, W = 586, ROW = 22, MIN = 6;
  const segments = segmentsAt(replay, step);
  const g = replay.tablesAt(step).g[0] || {};
  const devices = [...new Set((replay.payload.segments || []).map((s) => s[2]))];
  const totals = devices.map((d) => `${d}: allocated ${g["allocated " + d] || 0} B, reserved ${g["reserved " + d] || 0} B`).join(" · ");
  const height = 30 + Math.max(segments.length, 1) * ROW;
  let body = `<text x="4" y="12" class="tt-col">CUDA segments at this step · ${esc(totals)}</text>`;
  segments.forEach(([addr, bytes, device, pool, blocks], i) => {
    const y = 22 + i * ROW;
    body += `<text x="4" y="${y + 13}" class="tt-addr">${pool} ${hex(addr)}</text>`;
    // to scale, but no block narrower than MIN pixels: a 512 B block of a 2 MiB segment shows
    const span = W - LEFT - 6;
    const natural = blocks.map((b) => (span * b[1]) / bytes);
    const need = natural.filter((w) => w < MIN).length * MIN;
    const wide = natural.filter((w) => w >= MIN).reduce((t, w) => t + w, 0);
    const scale = wide > 0 && need < span ? (span - need) / wide : 1;
    let x = LEFT;
    blocks.forEach(([offset, size, state, storage, fromCache], k) => {
      const w = natural[k] < MIN ? MIN : natural[k] * scale;
      const who = storage != null ? `StorageImpl#${storage}` : state;
      const how = state === "allocated" && fromCache != null ? (fromCache ? ", served from the cache" : ", in a new segment") : "";
      body += `<g class="tt-seg-block tt-${state}"><title>${esc(who)}: ${size} B at offset ${offset} (${state}${how})</title>` +
        `<rect x="${x}" y="${y + 2}" width="${w}" height="${ROW - 6}"></rect></g>`;
      x += w;
    });
  });
  if (!segments.length) body += `<text x="${LEFT}" y="40" class="tt-empty">no segments: nothing reserved</text>`;
  return `<svg class="tt-segments" width="100%" style="max-width:${W}px" viewBox="0 0 ${W} ${height}">${body}</svg>`;
}

function codeHtml(replay, step) {
  const here = replay.hereAt(step);
  return replay.payload.code.map((line, i) =>
    `<div class="tt-line${i === here ? " tt-here" : ""}" data-start="${line[0]}">${esc(line[2])}` +
    `${i === here ? '<span class="tt-here-mark">  # &lt;--- here</span>' : ""}</div>`).join("") ||
    '<div class="tt-empty">no Python binding calls in this trace</div>';
}

function stackHtml(replay, step) {
  const chain = replay.stackAt(step);
  if (!chain.length) return '<div class="tt-empty">(no open frame)</div>';
  return chain.map((f, depth) => {
    const fr = replay.frameInfo(f);
    return `<div class="tt-frame tt-layer-${esc(fr.layer)}" style="padding-left:${depth * 12}px" data-begin="${fr.begin}">` +
      `<span class="tt-fname">${esc(fr.name)}</span> <span class="tt-tag">${esc(fr.layer)}</span>` +
      `<div class="tt-fsrc">${esc(fr.source)}${fr.symbol !== fr.name ? " :: " + esc(fr.symbol) : ""}` +
      `${fr.legacy ? ` <span class="tt-legacy">(2019: ${esc(fr.legacy)})</span>` : ""}</div></div>`;
  }).join("");
}

function counterpartHtml(replay, step) {
  const chain = replay.stackAt(step);
  if (!chain.length) return '<div class="tt-empty">between calls: no PyTorch frame is running</div>';
  const fr = replay.frameInfo(chain[chain.length - 1]);
  const row = (k, v) => v ? `<dt>${k}</dt><dd>${esc(v)}</dd>` : "";
  return `<dl>${row("frame", fr.name)}${row("layer", fr.layer)}${row("PyTorch file", fr.source)}` +
    `${row("C++ symbol", fr.symbol)}${row("2019 name", fr.legacy)}${row("arguments", fr.args)}` +
    `${row("dispatch", fr.details)}</dl>`;
}

// ---- the player UI ----------------------------------------------------------------------------
export function mount(el, model) {
  const replay = createReplay(model.get("payload"));
  const root = document.createElement("div");
  root.className = "tt-player";
  root.tabIndex = 0;
  const navButtons = NAV_KINDS.map((k) =>
    `<span class="tt-nav"><button data-prev="${k}" title="previous ${NAV_LABELS[k]}">◀</button>` +
    `<span>${NAV_LABELS[k]}</span><button data-next="${k}" title="next ${NAV_LABELS[k]}">▶</button></span>`).join("");
  root.innerHTML =
    `<div class="tt-bar"><button data-act="first" title="first step">|◀</button>` +
    `<button data-act="back" title="step back (←)">◀</button>` +
    `<button data-act="play" class="tt-play" title="play / pause (space)">▶ play</button>` +
    `<button data-act="fwd" title="step forward (→)">▶</button>` +
    `<button data-act="last" title="last step">▶|</button>` +
    `<input type="range" class="tt-slider" min="0" max="${replay.n - 1}" value="0">` +
    `<span class="tt-count"></span>` +
    `<select class="tt-speed" title="events per tick"><option value="1">1×</option>` +
    `<option value="5">5×</option><option value="25">25×</option></select></div>` +
    `<div class="tt-bar tt-navbar">${navButtons}</div>` +
    `<div class="tt-event"></div>` +
    `<div class="tt-grid"><div class="tt-col-left">` +
    `<section><h4>equivalent code</h4><pre class="tt-code"></pre></section>` +
    `<section><h4>call stack</h4><div class="tt-stack"></div></section>` +
    `<section><h4>PyTorch counterpart</h4><div class="tt-counterpart"></div></section>` +
    `</div><div class="tt-col-right">` +
    `<section><h4>objects: handle → TensorImpl → StorageImpl → DataPtr</h4><div class="tt-graph-box"></div></section>` +
    `<section><h4>memory map</h4><div class="tt-memory-box"></div></section>` +
    `</div></div>`;
  el.appendChild(root);
  const $ = (sel) => root.querySelector(sel);
  const slider = $(".tt-slider");
  let timer = null;

  function show(step) {
    step = replay.clamp(step);
    slider.value = String(step);
    $(".tt-count").textContent = `step ${step} / ${replay.n - 1}`;
    const ev = replay.eventAt(step);
    const evEl = $(".tt-event");
    evEl.textContent = ev.text;
    evEl.className = `tt-event tt-layer-${ev.layer}`;
    $(".tt-code").innerHTML = codeHtml(replay, step);
    $(".tt-stack").innerHTML = stackHtml(replay, step);
    $(".tt-counterpart").innerHTML = counterpartHtml(replay, step);
    $(".tt-graph-box").innerHTML = objectGraphSvg(replay, step);
    $(".tt-memory-box").innerHTML = memoryMapSvg(replay, step);
    root.dataset.step = String(step);
  }
  function go(step) {
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
  root.addEventListener("click", (e) => {
    const b = e.target.closest("button");
    if (!b) return;
    const step = model.get("step");
    const act = b.dataset.act;
    if (act === "play") { timer === null ? play() : stop(); return; }
    stop();
    if (act === "first") go(0);
    else if (act === "last") go(replay.n - 1);
    else if (act === "back") go(step - 1);
    else if (act === "fwd") go(step + 1);
    else if (b.dataset.next) { const s = replay.next(b.dataset.next, step); if (s !== null) go(s); }
    else if (b.dataset.prev) { const s = replay.prev(b.dataset.prev, step); if (s !== null) go(s); }
  });
  slider.addEventListener("input", () => { stop(); go(Number(slider.value)); });
  root.addEventListener("keydown", (e) => {
    if (e.key === "ArrowRight") { stop(); go(model.get("step") + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft") { stop(); go(model.get("step") - 1); e.preventDefault(); }
    else if (e.key === " ") { timer === null ? play() : stop(); e.preventDefault(); }
  });
  root.addEventListener("click", (e) => {
    const line = e.target.closest(".tt-line");
    if (line) { stop(); go(Number(line.dataset.start)); }
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
