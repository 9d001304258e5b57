// One run: its segments on a timeline with preemptions and checkpoints, utilization and cost.
import { html } from 'htm/preact';
import { get } from './api.js';
import { LineChart } from './charts.js';
import { duration, eventText, ms, pct, time, usd } from './format.js';
import { usePoll } from './poll.js';
import { spendSteps, utilization } from './series.js';
import { useCancel } from './overview.js';

const MARKS = { checkpoint_committed: '◆', preempted: '✕', preemption_notice: '!', resumed: '▶' };

function Timeline({ run }) {
  const now = Date.now();
  const start = ms(run.start);
  const end = run.end ? ms(run.end) : now;
  const span = Math.max(1, end - start);
  const at = (t) => `${(((t - start) / span) * 100).toFixed(3)}%`;
  return html`<div class="timeline" data-testid="timeline">
    ${run.segments.map((s, i) => {
      const a = ms(s.start);
      const b = s.end ? ms(s.end) : now;
      return html`<div class=${`seg ${s.tier} ${s.end_reason || 'open'}`} data-testid="segment"
        title=${`#${i + 1} ${s.cloud}:${s.instance_type} ${s.tier} ${usd(s.cost_usd)} ${s.end_reason || 'running'}`}
        style=${`left:${at(a)};width:calc(${at(b)} - ${at(a)})`}>#${i + 1} ${s.tier}</div>`;
    })}
    ${run.events.filter((e) => MARKS[e.type]).map((e) => html`<span class=${`mark ${e.type}`}
      data-testid="event-mark" title=${`${time(e.time)} ${eventText(e)}`} style=${`left:${at(ms(e.time))}`}>
      ${MARKS[e.type]}</span>`)}
  </div>
  <p class="muted">${time(run.start)} → ${run.end ? time(run.end) : 'now'} ·
    ◆ checkpoint committed · ✕ preempted · ! notice · ▶ resumed</p>`;
}

export function RunPage({ id }) {
  const { data, error } = usePoll(async () => {
    const [run, samples] = await Promise.all([get(`runs/${id}`), get(`runs/${id}/samples`)]);
    return { run, samples };
  }, id);
  const cancel = useCancel();
  if (!data) return html`<p class=${error ? 'error' : 'muted'}>${error ? error.message : 'Loading…'}</p>`;
  const { run, samples } = data;
  const util = utilization(samples);
  const spend = spendSteps(run);
  const elapsed = (run.end ? ms(run.end) : Date.now()) - ms(run.start);
  return html`
    ${error && html`<p class="error">${error.message}</p>`}
    <h2>Run ${run.id}: ${run.name} <span class=${`status ${run.status}`} data-testid="run-status">${run.status}</span>
      ${run.status === 'running' && html`<button data-testid="cancel" onClick=${() => cancel(run)}>Cancel</button>`}</h2>
    <section class="cards">
      <div class="card"><h3>Spend</h3><b data-testid="run-cost">${usd(run.cost_usd)}</b></div>
      <div class="card"><h3>Budget</h3><b>${run.budget_usd ? usd(run.budget_usd) : '-'}</b></div>
      <div class="card"><h3>Elapsed</h3><b>${duration(elapsed)}</b></div>
      <div class="card"><h3>GPU-hours</h3><b>${Number(run.gpu_hours).toFixed(2)}</b></div>
      <div class="card"><h3>Mean ${util.what} utilization</h3>
        <b>${pct(run.utilization.gpu_util_percent ?? run.utilization.cpu_util_percent)}</b></div>
    </section>
    <p class="muted">${run.command} · tags ${JSON.stringify(run.tags)}</p>
    <section><h2>Segments</h2><${Timeline} run=${run} />
      <table data-testid="segments"><thead><tr><th>#</th><th>Offer</th><th>GPU</th><th>Tier</th>
        <th class="num">Price/h</th><th>Start</th><th>Ended</th><th class="num">Cost</th></tr></thead>
        <tbody>${run.segments.map((s, i) => html`<tr><td>${i + 1}</td>
          <td>${s.cloud}:${s.instance_type}:${s.region}</td><td>${s.gpu_count}x${s.gpu || '-'}</td>
          <td>${s.tier}</td><td class="num">${usd(s.price_per_hour_usd)}</td><td>${time(s.start)}</td>
          <td>${s.end_reason || 'running'}</td><td class="num">${usd(s.cost_usd)}</td></tr>`)}</tbody></table></section>
    <section class="two">
      <div><h2>Cost</h2><${LineChart} testid="cost-chart" width=${460} data=${spend}
        series=${[{ label: 'spent' }]} yFormat=${(v) => usd(v)} /></div>
      <div><h2>${util.what} utilization</h2>${util.xs.length > 0
        ? html`<${LineChart} testid="util-chart" width=${460} data=${[util.xs, util.ys]}
            series=${[{ label: `${util.what} %`, color: '#16a34a' }]} yFormat=${(v) => `${v.toFixed(0)}%`} />`
        : html`<p class="muted">No samples recorded.</p>`}</div>
    </section>
    <section><h2>Events</h2><table data-testid="events"><tbody>${run.events.map((e) => html`<tr>
      <td>${time(e.time)}</td><td data-testid="event-text">${eventText(e)}</td></tr>`)}
    </tbody></table></section>`;
}
