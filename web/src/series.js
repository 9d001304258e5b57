// Turns API documents into chart series.
import { ms } from './format.js';

/** A run's cumulative spend at each segment boundary (and now, while one is open). */
export function spendSteps(run) {
  const xs = [];
  const ys = [];
  let total = 0;
  const now = Date.now();
  for (const seg of run.segments || []) {
    const start = ms(seg.start);
    const end = seg.end ? ms(seg.end) : now;
    xs.push(start / 1000);
    ys.push(total);
    total += Number(seg.cost_usd);
    xs.push(end / 1000);
    ys.push(total);
  }
  return [xs, ys];
}

/** Utilization samples: GPU where measured, else CPU. */
export function utilization(samples) {
  const list = samples?.samples || [];
  const gpu = list.some((s) => s.gpu_util_percent != null);
  const xs = list.map((s) => ms(s.time) / 1000);
  const ys = list.map((s) => (gpu ? s.gpu_util_percent : s.cpu_util_percent));
  return { xs, ys, what: gpu ? 'GPU' : 'CPU' };
}
