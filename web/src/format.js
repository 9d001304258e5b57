// How figures read on the dashboard: money with a currency, durations humanized.

/** The series colours, in order. */
export const palette = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2',
  '#db2777', '#65a30d', '#4b5563', '#ea580c'];

export function usd(value) {
  const n = Number(value);
  if (!Number.isFinite(n)) return '-';
  const digits = Math.abs(n) < 1 && n !== 0 ? 4 : 2;
  return `$${n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })}`;
}

export function pct(value) {
  return value == null ? '-' : `${Number(value).toFixed(0)}%`;
}

export function hours(value) {
  return value == null ? '-' : Number(value).toFixed(2);
}

export function duration(ms) {
  if (!Number.isFinite(ms) || ms < 0) return '-';
  const s = Math.round(ms / 1000);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d}d${String(h).padStart(2, '0')}h`;
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}

export function time(iso) {
  return iso ? iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '') : '-';
}

export const ms = (iso) => (iso ? Date.parse(iso) : NaN);

/** Bytes as a person reads them: "48 KiB", "1.5 GiB". */
export function bytes(value) {
  const n = Number(value);
  if (!Number.isFinite(n)) return '-';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return `${u === 0 || v >= 10 ? v.toFixed(0) : v.toFixed(1)} ${units[u]}`;
}

/** Seconds as a person reads them: "23 ms", "1.4 s". */
export function seconds(value) {
  const s = Number(value);
  if (!Number.isFinite(s)) return '-';
  return s < 1 ? `${Math.round(s * 1000)} ms` : `${s.toFixed(1)} s`;
}

/** One run event in words, from its type and payload (the ledger's, docs/ledger.md). */
export function eventText(e) {
  const p = e.payload || {};
  const step = p.step != null ? ` at step ${p.step}` : '';
  const detail = p.detail ? `: ${p.detail}` : '';
  switch (e.type) {
    case 'checkpoint_committed': {
      const n = /(\d+)$/.exec(p.detail || '');
      const what = n ? `checkpoint ${Number(n[1])}` : 'checkpoint';
      const size = p.bytes != null ? `: ${bytes(p.bytes)}` : '';
      const took = p.write_seconds != null ? `${size ? ' in' : ': in'} ${seconds(p.write_seconds)}` : '';
      return `${what} committed${step}${size}${took}`;
    }
    case 'preemption_notice':
      return `preemption notice${step}${detail}`;
    case 'preempted':
      return `preempted${step}${detail}`;
    case 'resumed':
      return `resumed${step}${p.seconds_to_first_progress != null
        ? `: first progress after ${seconds(p.seconds_to_first_progress)}` : ''}`;
    case 'budget_warning':
      return `budget warning${detail}`;
    case 'budget_stop':
      return `stopped at the ${p.cap ? `${p.cap} ` : ''}cap${detail}`;
    default: {
      const kind = (p.kind || e.type || 'event').replaceAll('_', ' ');
      return `${kind}${step}${detail}`;
    }
  }
}

/** A colour fixed by a series' name: the same team or trial keeps its colour between loads. */
export function colorFor(key, colors = palette) {
  let h = 0;
  for (const c of String(key)) h = (h * 31 + c.codePointAt(0)) >>> 0;
  return colors[h % colors.length];
}
