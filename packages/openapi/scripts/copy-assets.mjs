// Copies the prebuilt Swagger UI and ReDoc files the docs pages serve into assets/, with their
// licences and versions, so the published package needs neither `swagger-ui-dist` nor `redoc`
// (and ReDoc's React dependency tree) at run time.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const FILES = {
  'swagger-ui-dist': [
    'package.json',
    'LICENSE',
    'NOTICE',
    'swagger-ui.css',
    'swagger-ui-bundle.js',
    'swagger-ui-bundle.js.LICENSE.txt',
    'favicon-32x32.png',
  ],
  redoc: ['package.json', 'LICENSE', 'bundles/redoc.standalone.js', 'bundles/redoc.standalone.js.LICENSE.txt'],
};
const versions = {};
for (const [pkg, files] of Object.entries(FILES)) {
  const from = dirname(require.resolve(`${pkg}/package.json`));
  const { name, version } = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8'));
  versions[pkg] = { name, version };
  for (const file of files) {
    const to = join(root, 'assets', pkg, file);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(join(from, file), to);
  }
}
writeFileSync(join(root, 'assets', 'versions.json'), `${JSON.stringify(versions, null, 2)}\n`);
