// One study: leaderboard, learning curves by rung, spend against the gates, pruning savings.
import { html } from 'htm/preact';
import { get, post } from './api.js';
import { LineChart, palette } from './charts.js';
import { colorFor, usd } from './format.js';
import { usePoll } from './poll.js';
import { alertBox } from './overview.js';

function Gates({ gates }) {
  return html`<table data-testid="gates"><thead><tr><th>Gate</th><th class="num">Used</th>
    <th class="num">Cap</th><th>Share</th></tr></thead><tbody>
    ${Object.entries(gates || {}).map(([name, g]) => {
      const share = g.cap ? g.used / g.cap : 0;
      const fmt = (v) => (g.unit === 'usd' ? usd(v) : Number(v).toFixed(2));
      return html`<tr><td>${name}</td><td class="num">${fmt(g.used)}</td><td class="num">${fmt(g.cap)}</td>
        <td><span class="bar"><span style=${`width:${Math.min(100, share * 100)}%`}></span></span>
        ${(share * 100).toFixed(0)}%</td></tr>`;
    })}</tbody></table>`;
}

function Curves({ curves }) {
  const xs = curves.rungs;
  const shown = curves.trials.filter((t) => t.values.some((v) => v != null)).slice(0, 40);
  const data = [xs, ...shown.map((t) => t.values)];
  const series = shown.map((t) => ({ label: `${t.config_id} (${t.state})`, points: true, width: 1.5,
    color: colorFor(t.config_id, palette) }));
  if (xs.length === 0 || shown.length === 0) return html`<p class="muted">No rung results yet.</p>`;
  return html`<${LineChart} testid="curves-chart" x="num" xLabel=${curves.fidelity} yLabel="objective"
    data=${data} series=${series} width=${900} height=${300} />`;
}

async function pause(name) {
  try {
    await post(`studies/${encodeURIComponent(name)}/pause`);
    alertBox(`Asked study ${name} to pause.`, false);
  } catch (e) {
    alertBox(`Study ${name} was not paused: ${e.message}`, true);
  }
}

export function StudyPage({ name }) {
  const path = `studies/${encodeURIComponent(name)}`;
  const { data, error } = usePoll(async () => {
    const [status, curves] = await Promise.all([get(path), get(`${path}/curves`)]);
    return { status, curves };
  }, name);
  if (!data) return html`<p class=${error ? 'error' : 'muted'}>${error ? error.message : 'Loading…'}</p>`;
  const { status, curves } = data;
  const saved = status.pruning_saved_usd;
  return html`
    ${error && html`<p class="error">${error.message}</p>`}
    <h2>Study ${name} <span class=${`status ${status.status}`} data-testid="study-status">${status.status}</span>
      ${status.status === 'running' && html`<button data-testid="pause" onClick=${() => pause(name)}>Pause</button>`}</h2>
    <section class="cards">
      <div class="card"><h3 data-testid="study-spend-label">${status.replay ? 'Declared price (replay, nothing paid)' : 'Spent'}</h3>
        <b data-testid="study-spend">${usd(status.spend_usd)}</b></div>
      <div class="card"><h3>Trials started</h3><b>${status.trials_started ?? '-'}</b></div>
      <div class="card"><h3>Pruning saved</h3><b data-testid="pruning-saved">${saved != null ? usd(saved) : '-'}</b></div>
      <div class="card"><h3>Every trial at full fidelity</h3><b>${status.full_fidelity_cost_usd != null ? usd(status.full_fidelity_cost_usd) : '-'}</b></div>
    </section>
    <section><h2>Leaderboard</h2><table data-testid="leaderboard"><thead><tr><th class="num">#</th>
      <th>Trial</th><th>Config</th><th>State</th><th class="num">Fidelity</th><th class="num">Value</th>
      <th class="num">Spend</th></tr></thead><tbody>${status.leaderboard.map((t, i) => html`<tr>
        <td class="num">${i + 1}</td><td>${t.trial}</td><td class="mono">${t.config_id}</td><td>${t.state}</td>
        <td class="num">${t.fidelity}</td><td class="num">${t.value == null ? '-' : Number(t.value).toPrecision(4)}</td>
        <td class="num">${usd(t.spend_usd)}</td></tr>`)}</tbody></table></section>
    <section><h2>Learning curves by rung (${curves.direction})</h2><${Curves} curves=${curves} /></section>
    <section class="two"><div><h2>Spend against the gates</h2><${Gates} gates=${status.gates} /></div>
      <div><h2>Rungs</h2><table data-testid="rungs"><thead><tr><th>Rung</th><th class="num">Fidelity</th>
        <th class="num">Results</th><th class="num">Best</th><th>Prunes</th></tr></thead><tbody>
        ${status.rungs.map((r) => html`<tr><td>${r.rung}</td><td class="num">${r.fidelity}</td>
          <td class="num">${r.results}</td><td class="num">${r.best == null ? '-' : Number(r.best).toPrecision(4)}</td>
          <td>${r.prunes}</td></tr>`)}</tbody></table></div></section>`;
}
