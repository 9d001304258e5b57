// The dashboard in a real browser: Debian's Chromium driven by Playwright against `frugal
// serve` over a seeded ledger. Each page loads without a console error and shows the figures
// the API returns; the runs table follows a run live; a cancel without the token is refused.
// Screenshots of each page go to $SCREENSHOT_DIR. Exit 0 passed, 1 failed, 125 skipped.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { colorFor, eventText, usd } from '../src/format.js';

const here = dirname(fileURLToPath(import.meta.url));
const web = join(here, '..');
const chromiumPath = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find(existsSync);
const frugal = process.env.FRUGAL_BINARY;
const fixture = process.env.SERVER_FIXTURE;
const shots = process.env.SCREENSHOT_DIR || join(web, 'test-output');

function skip(why) {
  console.log(`SKIPPED: ${why}`);
  process.exit(125);
}
if (!frugal || !fixture) skip('FRUGAL_BINARY and SERVER_FIXTURE must name the built programs');
if (!chromiumPath) skip('Chromium is not installed (Debian chromium)');
let chromium;
try {
  ({ chromium } = await import('playwright-core'));
} catch {
  skip('playwright-core is not installed: run npm ci in web/');
}
if (!existsSync(join(web, 'dist', 'index.html'))) {
  const built = spawnSync('npx', ['vite', 'build'], { cwd: web, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('the dashboard did not build');
}

const failures = [];
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
}

const dir = mkdtempSync(join(tmpdir(), 'frugal-dashboard-'));
const db = join(dir, 'ledger.sqlite');
const env = { ...process.env, FRUGAL_HOME: join(dir, 'home') };
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};
const ids = JSON.parse(run(fixture, ['seed', db]));

// A small replayed study: 12 configurations × 9 epochs.
const table = join(dir, 'table');
mkdirSync(table);
let configs = 'config_id,lr,width\n';
let curves = 'config_id,epoch,elapsed_s,score\n';
for (let c = 0; c < 12; c++) {
  configs += `c${c},${(0.001 * (c + 1)).toFixed(3)},${64 * (1 + (c % 3))}\n`;
  const top = 0.6 + 0.03 * ((c * 7) % 12);
  for (let e = 1; e <= 9; e++) curves += `c${c},${e},${600 * e},${(top * (1 - Math.exp(-e / 3))).toFixed(4)}\n`;
}
writeFileSync(join(table, 'configs.csv'), configs);
writeFileSync(join(table, 'curves.csv'), curves);
run(frugal, ['tune', '--replay', table, '--metric', 'score', '--maximize', '--fidelity', 'epoch',
  '--cost-column', 'elapsed_s', '--price-per-hour', '3.6', '--budget', '40', '--name', 'sweep',
  '--db', db, '--json']);

writeFileSync(join(dir, 'audit.yaml'), 'budgets:\n  - {team: nlp, amount: 1000, period: month}\n  - {team: vision, amount: 400, period: month}\n');
writeFileSync(join(dir, 'token'), 'dashboard-test-token-0123\n');
chmodSync(join(dir, 'token'), 0o600);

const server = spawn(frugal, ['serve', '--listen', '127.0.0.1:0', '--db', db, '--thresholds',
  join(dir, 'audit.yaml'), '--token-file', join(dir, 'token')], { env, stdio: ['ignore', 'ignore', 'pipe'] });
const base = await new Promise((resolve, reject) => {
  let err = '';
  server.stderr.on('data', (d) => {
    err += d;
    const m = err.match(/frugal serve: (http:\/\/\S+)/);
    if (m) resolve(m[1]);
  });
  server.on('exit', (code) => reject(new Error(`frugal serve exited ${code}: ${err}`)));
  setTimeout(() => reject(new Error(`frugal serve did not start: ${err}`)), 20000);
});
const api = async (path) => (await fetch(`${base}/api/v1/${path}`)).json();

const browser = await chromium.launch({ executablePath: chromiumPath,
  args: ['--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'] });
const errors = [];
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  // The refused cancel's 401 is the one error the browser logs by design; anything else fails.
  let refusing = false;
  const refused = [];
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    if (refusing && /status of 401/.test(m.text())) refused.push(m.text());
    else errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  mkdirSync(shots, { recursive: true });
  page.setDefaultTimeout(15000);

  // --- Overview ---------------------------------------------------------------------------
  await page.goto(`${base}/?poll=400#/`);
  await page.waitForSelector('[data-testid=runs-table] tbody tr');
  const runs = await api('runs?limit=25');
  check(await page.locator('[data-testid=runs-table] tbody tr').count() === runs.runs.length,
    `the runs table lists the API's ${runs.runs.length} runs`);
  const vision = runs.runs.find((r) => r.id === ids.vision_run);
  check(await page.locator(`tr[data-run="${ids.vision_run}"] [data-testid=run-cost]`).innerText() === usd(vision.cost_usd),
    `the vision run costs ${usd(vision.cost_usd)} as the API says`);
  await page.waitForSelector('[data-testid=spend-chart] canvas');
  check(await page.locator('[data-testid=budgets] tbody tr').count() === 2, 'both budgets are listed');
  // One forecast: a team's monthly budget forecasts what the team's month forecast says.
  const [budgetDoc, byTeam] = await Promise.all([api('budgets'), api('report?by=team')]);
  for (const team of ['nlp', 'vision']) {
    const b = budgetDoc.budgets.find((x) => x.team === team && !x.project);
    const r = byTeam.rows.find((x) => (x.key?.[0] ?? x.team) === team);
    check(b && r && usd(b.forecast) === usd(r.month_forecast_usd),
      `team ${team}: budget forecast ${b && usd(b.forecast)} = month forecast ${r && usd(r.month_forecast_usd)}`);
  }
  // A replayed study's spend is its declared price, never shown as money paid.
  const listed = await page.locator('[data-testid=studies] [data-testid=study-list-spend]').first().innerText();
  check(/^declared \$.* \(replay\)$/.test(listed), `the replayed study reads as declared: "${listed}"`);
  // A team's colour is fixed by its name: the same after a reload, whatever the series order.
  const colors = async () => JSON.parse(await page.locator('[data-testid=spend-chart]').getAttribute('data-colors'));
  const before = await colors();
  await page.reload();
  await page.waitForSelector('[data-testid=spend-chart] canvas');
  const after = await colors();
  check(Object.keys(before).length > 0 && JSON.stringify(before) === JSON.stringify(after), 'the spend chart keeps its colours across loads');
  check(['nlp', 'vision'].every((team) => before[`${team} spent`] === colorFor(team)
    && before[`${team} forecast`] === colorFor(team)), `each team's colour is its name's: ${JSON.stringify(before)}`);
  await page.waitForSelector(`tr[data-run="${ids.running_run}"] [data-testid=util-spark] canvas`);
  const points = Number(await page.locator(`tr[data-run="${ids.running_run}"] [data-testid=util-spark]`).getAttribute('data-points'));
  check(points === 12, `the live run's utilization sparkline has its 12 samples (${points})`);
  await page.screenshot({ path: join(shots, 'overview.png'), fullPage: true });

  // A cancel without the token is refused, and the run goes on.
  refusing = true;
  await page.locator(`tr[data-run="${ids.running_run}"] [data-testid=cancel]`).click();
  await page.waitForSelector('[data-testid=notice].bad');
  refusing = false;
  check(refused.length === 1, 'the browser saw the refusal as one 401');
  const notice = await page.locator('[data-testid=notice]').innerText();
  check(/not cancelled: this request needs the server's token/.test(notice), `cancel without the token is refused: "${notice}"`);
  check((await api(`runs/${ids.running_run}`)).status === 'running', 'the run is still running');

  // Live: the run reports progress (a sample), then succeeds; the page follows without a reload.
  run(fixture, ['progress', db]);
  await page.waitForFunction((id) => document.querySelector(`tr[data-run="${id}"] [data-testid=util-spark]`)?.dataset.points === '13', ids.running_run);
  check(true, 'the sparkline grew by the new sample without a reload');
  run(fixture, ['finish', db]);
  await page.waitForFunction((id) => document.querySelector(`tr[data-run="${id}"] [data-testid=run-status]`)?.textContent === 'succeeded', ids.running_run);
  check(true, 'the finished run reads succeeded without a reload');
  const live = await api(`runs/${ids.running_run}`);
  await page.waitForFunction(([id, text]) => document.querySelector(`tr[data-run="${id}"] [data-testid=run-cost]`)?.textContent === text,
    [ids.running_run, usd(live.cost_usd)]);
  check(true, `and its cost settles at the API's ${usd(live.cost_usd)}`);
  // With nothing running the report stands still: the card shows its total.
  const report = await api('report?by=team');
  await page.waitForFunction((text) => document.querySelector('[data-testid=total-spend]')?.textContent === text,
    usd(report.total.spend_usd));
  check(true, `the 30-day spend card shows the report's ${usd(report.total.spend_usd)}`);
  await page.screenshot({ path: join(shots, 'overview-after.png'), fullPage: true });

  // --- A run ------------------------------------------------------------------------------
  await page.goto(`${base}/?poll=400#/runs/${ids.finished_run}`);
  await page.waitForSelector('[data-testid=timeline] [data-testid=segment]');
  const detail = await api(`runs/${ids.finished_run}`);
  check(await page.locator('[data-testid=timeline] [data-testid=segment]').count() === detail.segments.length,
    `the timeline draws the run's ${detail.segments.length} segments`);
  check(await page.locator('[data-testid=event-mark]').count() === detail.events.length,
    `and marks its ${detail.events.length} checkpoints, preemption and resume`);
  check(await page.locator('[data-testid=run-cost]').innerText() === usd(detail.cost_usd), `the run cost ${usd(detail.cost_usd)}`);
  await page.waitForSelector('[data-testid=util-chart] canvas');
  await page.waitForSelector('[data-testid=cost-chart] canvas');
  // Events read as words, not as the payload's JSON.
  const texts = await page.locator('[data-testid=events] [data-testid=event-text]').allInnerTexts();
  check(texts.length === detail.events.length && texts.every((t) => !t.includes('{')),
    `the ${detail.events.length} events read as words: ${JSON.stringify(texts)}`);
  const committed = detail.events.find((e) => e.type === 'checkpoint_committed');
  check(committed && texts.includes(eventText(committed)) && /^checkpoint .*committed/.test(eventText(committed)),
    `a checkpoint reads "${committed && eventText(committed)}"`);
  check(eventText({ type: 'checkpoint_committed', payload: { detail: 'ckpt-000011', step: 456, bytes: 49461, write_seconds: 0.023 } })
    === 'checkpoint 11 committed at step 456: 48 KiB in 23 ms', 'a checkpoint event in words');
  // Legends name the series and never show an empty cursor value ("time: --").
  const legends = await page.locator('.u-legend').allInnerTexts();
  check(legends.length > 0 && legends.every((l) => !l.includes('--')), `no legend reads "--": ${JSON.stringify(legends)}`);
  await page.screenshot({ path: join(shots, 'run.png'), fullPage: true });

  // --- A study ----------------------------------------------------------------------------
  await page.goto(`${base}/?poll=400#/studies/sweep`);
  await page.waitForSelector('[data-testid=leaderboard] tbody tr');
  const study = await api('studies/sweep');
  check(await page.locator('[data-testid=leaderboard] tbody tr').count() === study.leaderboard.length,
    `the leaderboard has the API's ${study.leaderboard.length} rows`);
  check(await page.locator('[data-testid=study-spend]').innerText() === usd(study.spend_usd), `the study's declared price ${usd(study.spend_usd)}`);
  check(study.replay === true && /Declared price \(replay/.test(await page.locator('[data-testid=study-spend-label]').innerText()),
    'a replayed study labels its spend as a declared price');
  check(await page.locator('[data-testid=rungs] tbody tr').count() === study.rungs.length, 'every rung is listed');
  await page.waitForSelector('[data-testid=curves-chart] canvas');
  check(await page.locator('[data-testid=gates] tbody tr').count() >= 1, 'the gates are shown');
  await page.screenshot({ path: join(shots, 'study.png'), fullPage: true });

  // --- The audit --------------------------------------------------------------------------
  await page.goto(`${base}/?poll=2000#/audit`);
  await page.waitForSelector('[data-testid=audit-count]');
  const audit = await api('audit');
  check(await page.locator('[data-testid=audit-count]').innerText() === String(audit.findings.length),
    `the audit page lists the API's ${audit.findings.length} findings`);
  check(await page.locator('[data-testid=audit-saving]').innerText() === usd(audit.total_saving_per_month),
    `saving ${usd(audit.total_saving_per_month)} per month`);
  await page.screenshot({ path: join(shots, 'audit.png'), fullPage: true });

  check(errors.length === 0, `no console errors${errors.length ? `: ${errors.join(' | ')}` : ''}`);
} catch (e) {
  failures.push(String(e));
  console.log(`FAIL ${e.stack || e}`);
} finally {
  await browser.close();
  server.kill('SIGTERM');
  await new Promise((r) => server.on('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
if (failures.length) {
  console.log(`${failures.length} check(s) failed`);
  process.exit(1);
}
console.log(`all checks passed; screenshots in ${shots}`);
