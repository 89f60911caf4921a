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
  if (payload.format !== "tensortrace-replay" || payload.version !== 2) {
    throw new Error("not a tensortrace replay payload (version 2)");
  }
  const n = payload.n;
  const ph = payload.ph;
  const frames = payload.frames;
  const deltas = payload.deltas;
  const strings = payload.strings; // a frame's texts are indices into this table
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
      index: f, begin: fr[1], end: fr[2], parent: fr[3], args: strings[fr[4]],
      details: strings[fr[5]], outcome: strings[fr[6]], layer: site[0], name: site[1], source: site[2], symbol: site[3],
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
  // A debugger's three steps, by frame. `into`: the next call that begins, at any depth.
  // `over`: on a call's first step, its last; elsewhere, the next call of the same function, or
  // its end. `out`: the end of the function running now.
  const begins = frames.map((fr) => fr[1]);
  function stepInto(step) {
    const k = bisectRight(begins, clamp(step));
    return k < begins.length ? begins[k] : null;
  }
  function stepOut(step) {
    const f = innermost[clamp(step)];
    return f >= 0 && frames[f][2] > step ? frames[f][2] : stepInto(step);
  }
  function stepOver(step) {
    step = clamp(step);
    if (ph[step] === "B") return frames[ordinal[step]][2];
    const f = innermost[step];
    const k = bisectRight(begins, step);
    if (k < begins.length && frames[k][3] === f) return begins[k];
    return f >= 0 ? frames[f][2] : null;
  }
  // The first step after `step` (wrapping) whose frame name, or instant text, contains `query`;
  // a number is a step. Case does not matter.
  function search(query, step) {
    const q = String(query).trim().toLowerCase();
    if (!q) return null;
    if (/^\d+$/.test(q)) return clamp(Number(q));
    const hits = [];
    frames.forEach((fr) => {
      const site = payload.sites[fr[0]];
      if (site && String(site[1]).toLowerCase().includes(q)) hits.push(fr[1]);
    });
    for (let i = 0, j = 0; i < n; i++) {
      if (ph[i] === "i") {
        if (String(payload.instants[j][1]).toLowerCase().includes(q)) hits.push(i);
        j++;
      }
    }
    if (!hits.length) return null;
    hits.sort((a, b) => a - b);
    const i = bisectRight(hits, step);
    return i < hits.length ? hits[i] : hits[0];
  }
  // Values (payload.py, Note [Values beside the events]): per TensorImpl its printed text, per
  // StorageImpl its elements, each as a list of [step, ...] sorted by step.
  const byKey = (rows) => {
    const out = new Map();
    for (const row of rows || []) {
      if (!out.has(row[1])) out.set(row[1], []);
      out.get(row[1]).push(row);
    }
    return out;
  };
  const textsOf = byKey((payload.values || {}).t);
  const elementsOf = byKey((payload.values || {}).s);
  const lastAt = (rows, step) => {
    if (!rows) return null;
    let lo = 0, hi = rows.length; // the last row at or before `step`
    while (lo < hi) { const mid = (lo + hi) >> 1; if (rows[mid][0] <= step) lo = mid + 1; else hi = mid; }
    return lo > 0 ? rows[lo - 1] : null;
  };
  // what TensorImpl `tensor` holds at `step`: the twin of payload.py's decode_values
  function valuesAt(tensor, storage, step) {
    step = clamp(step);
    const t = lastAt(textsOf.get(tensor), step);
    const later = (textsOf.get(tensor) || []).find((row) => row[0] > step);
    const e = lastAt(elementsOf.get(storage), step);
    return {
      text: t ? t[2] : null, textStep: t ? t[0] : null, nextTextStep: later ? later[0] : null,
      dtype: e ? e[2] : null, elements: e ? e[3] : null, elementsStep: e ? e[0] : null,
    };
  }
  return {
    n, payload, tablesAt, stackAt, frameInfo, hereAt, eventAt, next, prev, touched, handleName,
    clamp, stepInto, stepOver, stepOut, search, valuesAt,
    // how many deltas have been applied after `step`: equal versions, equal tables
    version: (step) => deltaStart[clamp(step) + 1],
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

// ---- values and the storage strip (seed 003) for one TensorImpl ---------------------------------
// The TensorImpl the values panel shows: the one picked (while it lives), else the newest one
// this step touched, else the newest alive.
export function pickTensor(replay, step, tables, picked) {
  const keys = Object.keys(tables.t).map(Number);
  if (!keys.length) return null;
  if (picked != null && tables.t[picked]) return picked;
  const touched = keys.filter((k) => replay.touched(step).has("t" + k));
  return Math.max(...(touched.length ? touched : keys));
}

// Which storage elements each logical index of a layout reaches: offset + sum(i_k * stride_k),
// as TensorImpl::data() and every strided loop compute it. Returns storage index -> first
// logical index reaching it, and how many indices reach it.
const MAX_WALK = 4096;
export function reachedElements(sizes, strides, offset) {
  const reached = new Map();
  const numel = sizes.reduce((a, b) => a * b, 1);
  if (numel === 0 || numel > MAX_WALK) return { reached, complete: numel === 0 };
  const index = sizes.map(() => 0);
  for (let n = 0; n < numel; n++) {
    let k = offset;
    for (let d = 0; d < sizes.length; d++) k += index[d] * strides[d];
    const seen = reached.get(k);
    if (seen) seen.count++; else reached.set(k, { index: index.slice(), count: 1 });
    for (let d = sizes.length - 1; d >= 0; d--) { if (++index[d] < sizes[d]) break; index[d] = 0; }
  }
  return { reached, complete: true };
}

// A storage too large to list (its elements are not recorded): the storage as BINS bins, those
// holding an element this view reaches filled in.
const BINS = 96;
const STORAGE_LIMIT = 1024;
const MAX_BIN_WALK = 200000;
export function reachedBins(sizes, strides, offset, length) {
  const numel = sizes.reduce((a, b) => a * b, 1);
  const bins = new Array(BINS).fill(false);
  if (numel === 0 || length === 0) return { bins, exact: true };
  const binOf = (k) => Math.min(BINS - 1, Math.floor((k * BINS) / length));
  if (numel > MAX_BIN_WALK) { // only the span: from the first to the last element reached
    let lo = offset, hi = offset;
    sizes.forEach((n, d) => { const reach = (n - 1) * strides[d]; if (reach < 0) lo += reach; else hi += reach; });
    for (let b = binOf(lo); b <= binOf(hi); b++) bins[b] = true;
    return { bins, exact: false };
  }
  const index = sizes.map(() => 0);
  for (let n = 0; n < numel; n++) {
    let k = offset;
    for (let d = 0; d < sizes.length; d++) k += index[d] * strides[d];
    bins[binOf(k)] = true;
    for (let d = sizes.length - 1; d >= 0; d--) { if (++index[d] < sizes[d]) break; index[d] = 0; }
  }
  return { bins, exact: true };
}

function reachBarHtml(sizes, strides, offset, length) {
  const { bins, exact } = reachedBins(sizes, strides, offset, length);
  const per = length / BINS;
  const cells = bins.map((hit, b) => `<span class="tt-bin${hit ? " tt-reached" : ""}" ` +
    `title="storage[${Math.floor(b * per)}…${Math.max(Math.floor(b * per), Math.ceil((b + 1) * per) - 1)}]` +
    `${hit ? " holds elements this view reaches" : ""}"></span>`).join("");
  return `<div class="tt-values-note">storage: ${length} elements, too many to list: ` +
    `${BINS} bins, filled where this view reaches${exact ? "" : " (its span)"}</div>` +
    `<div class="tt-bins">${cells}</div>`;
}

function fmtValue(v) {
  if (typeof v !== "number") return String(v);
  if (Number.isInteger(v)) return String(v);
  return String(Number(v.toPrecision(4)));
}

export function valuesHtml(replay, step, tables, tensor) {
  if (tensor == null) return '<div class="tt-empty">no TensorImpl alive at this step</div>';
  const row = tables.t[tensor];
  const sizes = row.sizes || [], strides = row.strides || [], offset = row.offset || 0;
  const v = replay.valuesAt(tensor, row.storage, step);
  const dtype = String(row.dtype || v.dtype || "").replace(/^torch\./, "");
  let out = `<div class="tt-values-head"><b>TensorImpl#${tensor}</b> sizes ${dimsText(sizes)} ` +
    `strides ${dimsText(strides)} offset ${offset} ${esc(dtype)} · StorageImpl#${row.storage}</div>`;
  if (v.text != null) {
    out += `<pre class="tt-values-text">${esc(v.text)}</pre>` +
      `<div class="tt-values-note">as read at step ${v.textStep}` +
      (v.textStep === step ? " (this step)" : "") + `</div>`;
  } else {
    out += `<div class="tt-empty">not written yet: its memory is uninitialized until a kernel ` +
      `fills it${v.nextTextStep != null ? ` (values read at step ${v.nextTextStep})` : ""}</div>`;
  }
  if (v.elements == null) {
    const length = row.itemsize && tables.s[row.storage]
      ? Math.floor(tables.s[row.storage].nbytes / row.itemsize) : 0;
    // past STORAGE_LIMIT (tensortrace/_trace_values.py) no elements are kept: bins instead
    return out + (length > STORAGE_LIMIT ? reachBarHtml(sizes, strides, offset, length) : "");
  }
  const { reached, complete } = reachedElements(sizes, strides, offset);
  const cells = v.elements.map((e, k) => {
    const hit = reached.get(k);
    const who = hit ? `${"[" + hit.index.join("][") + "]"}${hit.count > 1 ? ` and ${hit.count - 1} more` : ""} → ` : "";
    return `<span class="tt-cell${hit ? " tt-reached" : ""}" title="${esc(who)}storage[${k}] = ${esc(fmtValue(e))}">` +
      `<small>${k}</small>${esc(fmtValue(e))}</span>`;
  }).join("");
  out += `<div class="tt-values-note">storage: ${v.elements.length} elements, ` +
    `${complete ? reached.size : "?"} reached by this view (offset + Σ index × stride)` +
    `${v.elementsStep !== v.textStep ? `, read at step ${v.elementsStep}` : ""}</div>` +
    `<div class="tt-strip">${cells}</div>`;
  return out;
}

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
  const ticks = (replay.payload.nav.statement || []).slice(0, 400)
    .map((s) => `<option value="${s}"></option>`).join("");
  const listId = "tt-ticks-" + Math.random().toString(36).slice(2);
  root.innerHTML =
    `<div class="tt-bar"><button data-act="first" title="first step (Home)">|◀</button>` +
    `<button data-act="back" title="step back (←)">◀</button>` +
    `<button data-act="play" class="tt-play" title="play / pause (space)">▶ play</button>` +
    `<button data-act="fwd" title="step forward (→)">▶</button>` +
    `<button data-act="last" title="last step (End)">▶|</button>` +
    `<input type="range" class="tt-slider" min="0" max="${replay.n - 1}" value="0" list="${listId}" aria-label="step">` +
    `<datalist id="${listId}">${ticks}</datalist>` +
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
    slider.value = String(step);
    $(".tt-count").textContent = `step ${step} / ${replay.n - 1}`;
    const ev = replay.eventAt(step);
    const evEl = $(".tt-event");
    evEl.textContent = ev.text;
    evEl.className = `tt-event tt-layer-${ev.layer}`;
    markHere(step);
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
