// Every package package-lock.json installs on this platform accepts the oldest Node.js the
// dashboard supports (package.json's "engines", today Debian 12's Node 18). A lock that pulls in
// a package refusing it fails here, not on a user's fresh machine at build time.
// Exit 0 passed, 1 failed.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

const web = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(web, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(join(web, 'package-lock.json'), 'utf8'));
const oldest = semver.minVersion(manifest.engines?.node ?? '');
if (!oldest) {
  console.error('package.json: "engines.node" must name the oldest Node.js supported');
  process.exit(1);
}
// The platforms the project installs on (Debian 12 on x86_64 and arm64).
const platforms = [
  { os: 'linux', cpu: 'x64' },
  { os: 'linux', cpu: 'arm64' },
];
const accepts = (list, value) =>
  !list || (list.some((v) => !v.startsWith('!')) ? list.includes(value) : !list.includes(`!${value}`));

let refused = 0;
let checked = 0;
for (const [path, pkg] of Object.entries(lock.packages ?? {})) {
  if (!path) continue;
  const installed = platforms.some((p) => accepts(pkg.os, p.os) && accepts(pkg.cpu, p.cpu));
  if (!installed) continue;
  checked += 1;
  const range = pkg.engines?.node;
  if (range && !semver.satisfies(oldest, range)) {
    console.error(`package-lock.json: ${path}@${pkg.version} needs Node.js ${range}, ` +
      `not ${oldest} (package.json engines: ${manifest.engines.node})`);
    refused += 1;
  }
}
console.log(`${checked - refused} passed, ${refused} failed (packages against Node.js ${oldest})`);
process.exit(refused ? 1 : 0);
