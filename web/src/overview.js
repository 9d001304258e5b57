// The first page: spend by team with budgets and forecast, runs with live status and
// sparklines, studies, and the audit's total.
import { html } from 'htm/preact';
import { useRef } from 'preact/hooks';
import { get, post } from './api.js';
import { LineChart, palette, Sparkline } from './charts.js';
import { colorFor, duration, hours, ms, time, usd } from './format.js';
import { usePoll } from './poll.js';
import { spendSteps, utilization } from './series.js';

async function loadOverview(cache) {
  const [daily, report, budgets, runs, studies] = await Promise.all([
    get('spend/daily?by=team&since=30d'), get('report?by=team'), get('budgets'),
    get('runs?limit=25'), get('studies')]);
  // Sparklines: each run's detail and samples; an ended run's are fetched once.
  await Promise.all(runs.runs.map(async (r) => {
    const cached = cache.get(r.id);
    if (cached && cached.status !== 'running' && cached.status === r.status) return;
    const [detail, samples] = await Promise.all([get(`runs/${r.id}`), get(`runs/${r.id}/samples`)]);
    cache.set(r.id, { status: r.status, spend: spendSteps(detail), util: utilization(samples) });
  }));
  return { daily, report, budgets, runs, studies };
}

function SpendChart({ daily, budgets, report }) {
  // Days of the window, then on to the end of this month for the forecast.
  const day = 86400;
  const xs = daily.days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
  const today = xs.length - 1;
  const now = new Date();
  const monthEnd = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000;
  while (xs[xs.length - 1] + day <= monthEnd) xs.push(xs[xs.length - 1] + day);
  const rows = new Map(report.rows.map((r) => [r.team, r]));
  const series = [];
  const data = [xs];
  daily.series.forEach((s) => {
    const color = colorFor(s.key, palette);  // by name: a team keeps its colour between loads
    let total = 0;
    const spent = xs.map((_, k) => (k <= today ? (total += Number(s.spend_usd[k] ?? 0)) : null));
    data.push(spent);
    series.push({ label: `${s.key} spent`, color });
    // Forecast: the rest of the month at the report's burn (month forecast − month to date).
    const r = rows.get(s.key);
    const rest = r ? Number(r.month_forecast_usd) - Number(r.month_to_date_usd) : 0;
    const span = xs.length - 1 - today;
    data.push(xs.map((_, k) => (k < today ? null : total + (span > 0 ? (rest * (k - today)) / span : 0))));
    series.push({ label: `${s.key} forecast`, color, dash: [2, 4], width: 2 });
    // Its monthly budget as a dashed level.
    for (const b of budgets.budgets.filter((b) => b.team === s.key && !b.project)) {
      data.push(xs.map(() => Number(b.amount)));
      series.push({ label: `${s.key} budget`, color, dash: [8, 4], width: 1 });
    }
  });
  return html`<${LineChart} testid="spend-chart" data=${data} series=${series} width=${1150} height=${280}
    yLabel="USD, cumulative over 30 days" yFormat=${(v) => usd(v)} />`;
}

function BudgetTable({ budgets, report }) {
  const forecast = new Map(report.rows.map((r) => [r.key?.[0] ?? r.team, r]));
  return html`<table data-testid="budgets">
    <thead><tr><th>Budget</th><th>Period</th><th class="num">Spent</th><th class="num">Forecast</th>
      <th class="num">Amount</th><th>Used</th></tr></thead>
    <tbody>${budgets.budgets.map((b) => {
      const used = Number(b.spent) / Number(b.amount);
      const over = Number(b.forecast) > Number(b.amount);
      return html`<tr>
        <td>${[b.team && `team ${b.team}`, b.project && `project ${b.project}`].filter(Boolean).join(' / ')}</td>
        <td>${b.period}</td><td class="num">${usd(b.spent)}</td>
        <td class=${`num ${over ? 'bad' : ''}`}>${usd(b.forecast)}</td><td class="num">${usd(b.amount)}</td>
        <td><span class="bar"><span style=${`width:${Math.min(100, used * 100)}%`}></span></span>
          ${(used * 100).toFixed(0)}%</td></tr>`;
    })}</tbody></table>
    ${budgets.budgets.length === 0 && html`<p class="muted">No budgets declared (audit.yaml, budgets:).</p>`}
    <table data-testid="team-forecast"><thead><tr><th>Team</th><th class="num">Spend (30d)</th>
      <th class="num">Month to date</th><th class="num">Month forecast</th></tr></thead>
    <tbody>${[...forecast.entries()].map(([team, r]) => html`<tr><td>${team}</td>
      <td class="num">${usd(r.spend_usd)}</td><td class="num">${usd(r.month_to_date_usd)}</td>
      <td class="num">${usd(r.month_forecast_usd)}</td></tr>`)}</tbody></table>`;
}

export function RunsTable({ runs, cache, onCancel }) {
  const now = Date.now();
  return html`<table class="runs" data-testid="runs-table">
    <thead><tr><th class="num">ID</th><th>Name</th><th>Status</th><th>Team</th><th>Project</th>
      <th>GPU</th><th>Tier</th><th>Started</th><th class="num">Elapsed</th><th class="num">GPU-h</th>
      <th class="num">Spend</th><th>Spend over time</th><th>Utilization</th><th></th></tr></thead>
    <tbody>${runs.map((r) => {
      const c = cache.get(r.id);
      return html`<tr data-run=${r.id}>
        <td class="num"><a href=${`#/runs/${r.id}`}>${r.id}</a></td><td>${r.name}</td>
        <td><span class=${`status ${r.status}`} data-testid="run-status">${r.status}</span></td>
        <td>${r.tags.team || '-'}</td><td>${r.tags.project || '-'}</td><td>${r.gpu || '-'}</td>
        <td>${r.tier || '-'}</td><td>${time(r.start)}</td>
        <td class="num">${duration((r.end ? ms(r.end) : now) - ms(r.start))}</td>
        <td class="num">${hours(r.gpu_hours)}</td>
        <td class="num" data-testid="run-cost">${usd(r.cost_usd)}</td>
        <td>${c && html`<${Sparkline} testid="spend-spark" xs=${c.spend[0]} ys=${c.spend[1]} />`}</td>
        <td>${c && c.util.xs.length > 0 && html`<${Sparkline} testid="util-spark" xs=${c.util.xs}
          ys=${c.util.ys} max=${100} color="#16a34a" />`}</td>
        <td>${r.status === 'running' && onCancel && html`<button data-testid="cancel"
          onClick=${() => onCancel(r)}>Cancel</button>`}</td></tr>`;
    })}</tbody></table>`;
}

export function useCancel() {
  return async (run) => {
    try {
      await post(`runs/${run.id}/cancel`);
      alertBox(`Asked run ${run.id} to stop.`, false);
    } catch (e) {
      alertBox(`Run ${run.id} was not cancelled: ${e.message}`, true);
    }
  };
}

export function alertBox(text, bad) {
  const el = document.getElementById('notice') || document.body.appendChild(
    Object.assign(document.createElement('div'), { id: 'notice' }));
  el.dataset.testid = 'notice';
  el.className = bad ? 'notice bad' : 'notice';
  el.textContent = text;
}

export function Overview() {
  const cache = useRef(new Map()).current;
  const { data, error } = usePoll(() => loadOverview(cache), 'overview');
  const cancel = useCancel();
  if (!data) return html`<p class=${error ? 'error' : 'muted'}>${error ? error.message : 'Loading…'}</p>`;
  const { daily, report, budgets, runs, studies } = data;
  const total = report.total;
  return html`
    ${error && html`<p class="error">${error.message}</p>`}
    <section class="cards">
      <div class="card"><h3>Spend, last 30 days</h3><b data-testid="total-spend">${usd(total.spend_usd)}</b></div>
      <div class="card"><h3>Month forecast</h3><b data-testid="month-forecast">${usd(total.month_forecast_usd)}</b></div>
      <div class="card"><h3>GPU-hours</h3><b>${hours(total.gpu_hours)}</b></div>
      <div class="card"><h3>Spot share</h3><b>${(Number(total.spot_share ?? 0) * 100).toFixed(0)}%</b></div>
    </section>
    <section><h2>Spend by team</h2><${SpendChart} daily=${daily} budgets=${budgets} report=${report} />
      <${BudgetTable} budgets=${budgets} report=${report} /></section>
    <section><h2>Runs</h2><${RunsTable} runs=${runs.runs} cache=${cache} onCancel=${cancel} /></section>
    <section><h2>Studies</h2><table data-testid="studies"><thead><tr><th>Study</th><th>Status</th>
      <th class="num">Trials</th><th class="num">Best</th><th class="num">Spent</th></tr></thead><tbody>${studies.studies.map((s) => html`<tr>
        <td><a href=${`#/studies/${encodeURIComponent(s.name)}`}>${s.name}</a></td>
        <td>${s.status || s.error}</td><td class="num">${s.trials_started ?? '-'}</td>
        <td class="num">${s.best_value != null ? Number(s.best_value).toPrecision(4) : '-'}</td>
        <td class="num" data-testid="study-list-spend">${s.spend_usd == null ? '-'
          : s.replay ? html`<span class="muted" title="a replay pays nothing: the table's cost at its declared price">declared ${usd(s.spend_usd)} (replay)</span>`
          : usd(s.spend_usd)}</td>
      </tr>`)}</tbody></table></section>`;
}
