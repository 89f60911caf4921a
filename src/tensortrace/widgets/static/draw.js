// tensortrace TimelinePlayer, part 2 of 4: the panels' pictures and texts, drawn from the
// replay (object graph, memory map, code, stack, counterpart, autograd engine).

// ---- drawing ----------------------------------------------------------------------------------
const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
  .replace(/"/g, "&quot;");
const hex = (a) => "0x" + Number(a).toString(16);
const dimsText = (v) => "[" + (v || []).slice(0, 6).join(", ") + ((v || []).length > 6 ? ", …" : "") + "]";

function box(x, y, w, h, cls, title, badge, sub, changed, tip, attrs) {
  return `<g class="tt-node ${cls}${changed ? " tt-changed" : ""}"${attrs || ""}>` +
    `<title>${esc(tip || title + (badge ? " · " + badge : "") + "\n" + sub)}</title>` +
    `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="6"></rect>` +
    `<text x="${x + 8}" y="${y + 17}" class="tt-node-title">${esc(title)}</text>` +
    (badge ? `<text x="${x + w - 8}" y="${y + 17}" class="tt-node-badge" text-anchor="end">${esc(badge)}</text>` : "") +
    `<text x="${x + 8}" y="${y + 36}" class="tt-node-sub">${esc(sub)}</text></g>`;
}

function edge(x1, y1, x2, y2, cls) {
  const mx = (x1 + x2) / 2;
  return `<path class="tt-edge ${cls || ""}" d="M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}"></path>`;
}

// Seed 001's picture, live: each Python handle on the row of its TensorImpl, each StorageImpl
// on the row of the first TensorImpl that uses it, a view's link to its base drawn dashed.
export function objectGraphSvg(replay, step, tables, selected) {
  tables = tables || replay.tablesAt(step);
  const changed = replay.touched(step);
  // a column per object kind, each as wide as its longest label needs at 11-12 px
  const WS = [120, 210, 190, 118], H = 46, GAP = 14, COLS = [8, 158, 398, 618];
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
  const width = COLS[3] + WS[3] + 8;
  let body = "";
  ["Python handle", "TensorImpl", "StorageImpl", "DataPtr"].forEach((h, i) => {
    body += `<text x="${COLS[i]}" y="14" class="tt-col">${h}</text>`;
  });
  let edges = "";
  for (const k of handles) {
    const row = tables.h[k];
    const y = hPos.get(k);
    body += box(COLS[0], y, WS[0], H, "tt-handle", replay.handleName(k), "", "THPVariable", changed.has("h" + k),
      `Python handle ${replay.handleName(k)} (a THPVariable) → TensorImpl#${row.impl}`);
    if (tPos.has(row.impl)) edges += edge(COLS[0] + WS[0], y + H / 2, COLS[1], tPos.get(row.impl) + H / 2);
  }
  for (const k of tensors) {
    const row = tables.t[k];
    const y = tPos.get(k);
    const sub = `${dimsText(row.sizes)} ${dimsText(row.strides)} +${row.offset} ` +
      String(row.dtype || "").replace(/^torch\./, "");
    const tip = `TensorImpl#${k} · refcount ${row.refcount}\nsizes ${dimsText(row.sizes)}\n` +
      `strides ${dimsText(row.strides)}\nstorage offset ${row.offset}\ndtype ${row.dtype || "?"}\n` +
      `storage StorageImpl#${row.storage}` + (row.view_of != null ? `\nview of TensorImpl#${row.view_of}` : "");
    body += box(COLS[1], y, WS[1], H, "tt-impl" + (row.view_of != null ? " tt-view" : "") +
      (k === selected ? " tt-selected" : ""),
      `TensorImpl#${k}`, `refcount ${row.refcount}`, sub, changed.has("t" + k),
      tip + "\n(click: its values and storage strip)", ` data-tensor="${k}"`);
    if (sPos.has(row.storage)) edges += edge(COLS[1] + WS[1], y + H / 2, COLS[2], sPos.get(row.storage) + H / 2);
    if (row.view_of != null && tPos.has(row.view_of)) {
      const yb = tPos.get(row.view_of);
      const x0 = COLS[1] + 12;
      const dy = yb > y ? H : 0;
      edges += `<path class="tt-edge tt-base" d="M${x0},${y + (yb > y ? H : 0)} C${x0 - 34},${(y + yb) / 2 + H / 2} ${x0 - 34},${(y + yb) / 2 + H / 2} ${x0},${yb + H - dy}"></path>` +
        `<text class="tt-edge-label" x="${COLS[1] - 62}" y="${(y + yb) / 2 + H / 2 + 4}">base</text>`;
    }
  }
  for (const k of storages) {
    const row = tables.s[k];
    const y = sPos.get(k);
    body += box(COLS[2], y, WS[2], H, "tt-storage", `StorageImpl#${k}`, `refcount ${row.refcount}`, `${row.nbytes} B ${row.device || ""}`, changed.has("s" + k),
      `StorageImpl#${k} · refcount ${row.refcount}\n${row.nbytes} bytes on ${row.device || "cpu"}\ndata at ${hex(row.addr)}`);
    body += box(COLS[3], y, WS[3], H, "tt-dataptr", "DataPtr", "", hex(row.addr), false,
      `DataPtr ${hex(row.addr)}: the memory, its device and the deleter that returns it to the allocator`);
    edges += edge(COLS[2] + WS[2], y + H / 2, COLS[3], y + H / 2);
  }
  if (!handles.length && !tensors.length && !storages.length) {
    body += `<text x="8" y="46" class="tt-empty">no live tensors at this step</text>`;
  }
  // drawn at its own size (never scaled below it, so no text shrinks under 11 px); the box
  // around it scrolls when the panel is narrower
  return `<svg class="tt-graph" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${edges}${body}</svg>`;
}

// Past this many blocks (or addresses) one lane per address is a barcode: the map draws the
// allocated bytes over steps instead, as one curve computed once per replay.
const MAX_BLOCKS = 240;
const MAX_BLOCK_LANES = 40;
const curves = new WeakMap();

export function memoryMapSvg(replay, step) {
  const blocks = replay.payload.blocks;
  const curve = curves.get(replay) || allocatedCurve(replay);
  if (curve.aggregate) {
    const svg = allocatedCurveSvg(replay, step);
    return (replay.payload.segments || []).length ? svg + segmentsSvg(replay, step) : svg;
  }
  const n = replay.n;
  const addrs = curve.addrs;
  const lane = new Map(addrs.map((a, i) => [a, i]));
  const LEFT = 124, W = 600, LANE = 22;
  const height = 36 + Math.max(addrs.length, 1) * LANE;
  const x = (s) => LEFT + (n > 1 ? (s / (n - 1)) * (W - LEFT - 6) : 0);
  let body = "";
  addrs.forEach((a, i) => {
    body += `<text x="4" y="${26 + i * LANE + 14}" class="tt-addr">${hex(a)}</text>`;
  });
  for (const b of blocks) {
    const [addr, bytes, a, f, storage] = b;
    const end = f == null ? n - 1 : f;
    const state = a > step ? "tt-future" : (f != null && f <= step ? "tt-freed" : "tt-live");
    const y = 26 + lane.get(addr) * LANE;
    const w = Math.max(2, x(end) - x(a));
    const label = `${bytes} B${storage != null ? " · StorageImpl#" + storage : ""}`;
    body += `<g class="tt-block ${state}"><title>${esc(label)} at ${hex(addr)}: steps ${a}–${f == null ? "end" : f}</title>` +
      `<rect x="${x(a)}" y="${y + 2}" width="${w}" height="${LANE - 4}" rx="3"></rect>` +
      (w > label.length * 7 + 8 ? `<text x="${x(a) + 4}" y="${y + 15}">${esc(label)}</text>` : "") + `</g>`;
  }
  const tables = replay.tablesAt(step);
  const allocated = (tables.g[0] || {}).allocated || 0;
  body += `<line class="tt-now" x1="${x(step)}" x2="${x(step)}" y1="20" y2="${height - 4}"></line>`;
  body += `<text x="${LEFT}" y="13" class="tt-col">blocks by address over steps · allocated now: ${allocated} B</text>`;
  if (!blocks.length) body += `<text x="${LEFT}" y="42" class="tt-empty">no allocations in this trace</text>`;
  const map = `<svg class="tt-memory" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}">${body}</svg>`;
  return (replay.payload.segments || []).length ? map + segmentsSvg(replay, step) : map;
}

// Where the `now` line of memoryMapSvg stands at `step` (either view).
function nowX(replay, step) {
  const c = curves.get(replay) || allocatedCurve(replay);
  if (c.aggregate) return c.x(step);
  const n = replay.n, LEFT = 124, W = 600;
  return LEFT + (n > 1 ? (step / (n - 1)) * (W - LEFT - 6) : 0);
}

function countAtOrBefore(sorted, step) {
  let lo = 0, hi = sorted.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (sorted[mid] <= step) lo = mid + 1; else hi = mid; }
  return lo;
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
  return `<svg class="tt-segments" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}">${body}</svg>`;
}

// The aggregate view's data, once per replay: the bytes allocated after each change, its path.
function allocatedCurve(replay) {
  const blocks = replay.payload.blocks;
  const n = replay.n;
  const addrs = [...new Set(blocks.map((b) => b[0]))].sort((a, b) => a - b);
  const change = new Map();
  for (const [, bytes, a, f] of blocks) {
    change.set(a, (change.get(a) || 0) + bytes);
    if (f != null) change.set(f, (change.get(f) || 0) - bytes);
  }
  const steps = [...change.keys()].sort((a, b) => a - b);
  const totals = [];
  let total = 0, peak = 1;
  for (const s of steps) {
    total += change.get(s);
    totals.push(total);
    peak = Math.max(peak, total);
  }
  const LEFT = 8, W = 600, TOP = 22, H = 120;
  const x = (s) => LEFT + (n > 1 ? (s / (n - 1)) * (W - LEFT - 6) : 0);
  const y = (v) => TOP + H - (v / peak) * H;
  let d = `M${x(0)},${y(0)}`;
  steps.forEach((s, i) => { d += ` H${x(s).toFixed(1)} V${y(totals[i]).toFixed(1)}`; });
  d += ` H${x(n - 1)} V${y(0)} Z`;
  const curve = {
    aggregate: blocks.length > MAX_BLOCKS || addrs.length > MAX_BLOCK_LANES,
    addrs, steps, totals, peak, d, x, W, TOP, H, LEFT, blocks: blocks.length,
  };
  curves.set(replay, curve);
  return curve;
}

// The aggregate view for many blocks: bytes allocated after each step, as one filled curve.
function allocatedCurveTitle(replay, step) {
  const c = curves.get(replay) || allocatedCurve(replay);
  let lo = 0, hi = c.steps.length; // the last change at or before `step`
  while (lo < hi) { const mid = (lo + hi) >> 1; if (c.steps[mid] <= step) lo = mid + 1; else hi = mid; }
  const now = lo > 0 ? c.totals[lo - 1] : 0;
  return `${c.blocks} blocks at ${c.addrs.length} addresses: ` +
    `allocated bytes over steps · now ${now} B · peak ${c.peak} B`;
}

function allocatedCurveSvg(replay, step) {
  const c = curves.get(replay) || allocatedCurve(replay);
  const body = `<path class="tt-curve" d="${c.d}"></path>` +
    `<line class="tt-now" x1="${c.x(step)}" x2="${c.x(step)}" y1="${c.TOP}" y2="${c.TOP + c.H}"></line>` +
    `<text x="${c.LEFT}" y="13" class="tt-col">${esc(allocatedCurveTitle(replay, step))}</text>`;
  const h = c.TOP + c.H + 6;
  return `<svg class="tt-memory tt-aggregate" width="${c.W}" height="${h}" viewBox="0 0 ${c.W} ${h}">${body}</svg>`;
}

function lineHtml(line, i, here) {
  return `<div class="tt-line${i === here ? " tt-here" : ""}" data-line="${i}" data-start="${line[0]}" ` +
    `title="line ${i + 1}: steps ${line[0]}–${line[1]} (click to go to its first step)">${esc(line[2])}` +
    `${i === here ? '<span class="tt-here-mark">  # &lt;--- here</span>' : ""}</div>`;
}

function stackHtml(replay, step) {
  const chain = replay.stackAt(step);
  if (!chain.length) return '<div class="tt-empty">(no open frame)</div>';
  return '<div class="tt-stack-inner">' + chain.map((f, depth) => {
    const fr = replay.frameInfo(f);
    const tip = `${fr.name} [${fr.layer}]\n${fr.source}${fr.symbol !== fr.name ? " :: " + fr.symbol : ""}` +
      `${fr.legacy ? "\n2019: " + fr.legacy : ""}\nsteps ${fr.begin}–${fr.end} (click to go to its first step)`;
    return `<div class="tt-frame tt-layer-${esc(fr.layer)}" style="padding-left:${depth * 12}px" data-begin="${fr.begin}" title="${esc(tip)}">` +
      `<span class="tt-fname">${esc(fr.name)}</span> <span class="tt-tag">${esc(fr.layer)}</span>` +
      `<div class="tt-fsrc">${esc(fr.source)}${fr.symbol !== fr.name ? " :: " + esc(fr.symbol) : ""}` +
      `${fr.legacy ? ` <span class="tt-legacy">(2019: ${esc(fr.legacy)})</span>` : ""}</div></div>`;
  }).join("") + "</div>";
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

// The autograd engine at `step`: the Node it is evaluating, its ready queue and the dependency
// counts still pending, as the innermost evaluate_function frame recorded them (engine.cpp).
const EVALUATE = "autograd::engine::evaluate_function: ";
export function engineAt(replay, step) {
  const chain = replay.stackAt(step);
  for (let k = chain.length - 1; k >= 0; k--) {
    const fr = replay.frameInfo(chain[k]);
    if (!fr.name.startsWith(EVALUATE)) continue;
    const args = String(fr.args || "");
    const deps = args.indexOf(", dependencies="), ready = args.indexOf(", ready_queue=");
    return {
      node: deps >= 0 ? args.slice("node=".length, deps) : fr.name.slice(EVALUATE.length),
      dependencies: deps >= 0 && ready > deps ? args.slice(deps + ", dependencies=".length, ready) : "",
      ready: ready >= 0 ? args.slice(ready + ", ready_queue=".length) : "",
      begin: fr.begin,
    };
  }
  return null;
}

function engineHtml(replay, step) {
  const e = engineAt(replay, step);
  if (!e) return '<div class="tt-empty">not inside a backward Node at this step</div>';
  const row = (k, v) => `<dt>${k}</dt><dd>${esc(v || "—")}</dd>`;
  return `<dl>${row("evaluating", e.node)}${row("ready queue", e.ready)}` +
    `${row("dependencies", e.dependencies)}</dl>`;
}

