// The audit's findings, ranked by saving per month, with the budgets it forecast.
import { html } from 'htm/preact';
import { get } from './api.js';
import { usd } from './format.js';
import { usePoll } from './poll.js';

export function AuditPage() {
  const { data, error } = usePoll(() => get('audit'), 'audit');
  if (!data) return html`<p class=${error ? 'error' : 'muted'}>${error ? error.message : 'Loading…'}</p>`;
  return html`
    ${error && html`<p class="error">${error.message}</p>`}
    <section class="cards">
      <div class="card"><h3>Spend in the window</h3><b>${usd(data.spend_in_window)}</b></div>
      <div class="card"><h3>Saving per month</h3><b data-testid="audit-saving">${usd(data.total_saving_per_month)}</b></div>
      <div class="card"><h3>Findings</h3><b data-testid="audit-count">${data.findings.length}</b></div>
    </section>
    <section><h2>Findings</h2><table data-testid="findings"><thead><tr><th>Rule</th><th>Subject</th>
      <th class="num">Saving / month</th><th>Evidence</th><th>Action</th></tr></thead><tbody>
      ${data.findings.map((f) => html`<tr><td>${f.rule}</td><td>${f.subject}</td>
        <td class="num">${f.saving_per_month == null ? '-' : usd(f.saving_per_month)}</td>
        <td>${f.evidence}</td><td>${f.action}</td></tr>`)}</tbody></table>
      ${data.notes?.length > 0 && html`<ul class="muted">${data.notes.map((n) => html`<li>${n}</li>`)}</ul>`}
    </section>`;
}
