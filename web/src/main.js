// frugal's dashboard: spend by team against budgets, runs, one run, one study, the audit.
// Pages are addressed by the hash (#/, #/runs/12, #/studies/lr-sweep, #/audit).
import { html } from 'htm/preact';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { setToken, token } from './api.js';
import { Overview } from './overview.js';
import { RunPage } from './run_page.js';
import { StudyPage } from './study_page.js';
import { AuditPage } from './audit_page.js';
import './style.css';

function route() {
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  if (parts[0] === 'runs' && parts[1]) return html`<${RunPage} id=${parts[1]} />`;
  if (parts[0] === 'studies' && parts[1]) return html`<${StudyPage} name=${parts[1]} />`;
  if (parts[0] === 'audit') return html`<${AuditPage} />`;
  return html`<${Overview} />`;
}

function TokenBox() {
  const [value, setValue] = useState(token());
  return html`<label class="token">token
    <input type="password" data-testid="token" value=${value} placeholder="for changes"
      onInput=${(e) => { setValue(e.target.value); setToken(e.target.value); }} /></label>`;
}

function App() {
  const [, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => {
      document.getElementById('notice')?.remove();
      setHash(location.hash);
    };
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return html`
    <header>
      <a class="brand" href="#/">frugal</a>
      <nav><a href="#/">Spend and runs</a><a href="#/audit">Audit</a></nav>
      <${TokenBox} />
    </header>
    <main key=${location.hash}>${route()}</main>`;
}

render(html`<${App} />`, document.getElementById('app'));
