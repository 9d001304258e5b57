// How figures read on the dashboard: money with a currency, durations humanized.

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
