// tensortrace TimelinePlayer, part 1 of 4 (replay.js, draw.js, values.js, player.js): one ES
// module, concatenated in that order by widgets/player.py. The replay of a payload.

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

