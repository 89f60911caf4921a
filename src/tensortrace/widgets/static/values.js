// tensortrace TimelinePlayer, part 3 of 4: one TensorImpl's values and seed 003's storage strip.

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

