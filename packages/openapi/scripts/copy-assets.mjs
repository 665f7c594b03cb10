// Copies the prebuilt Swagger UI and ReDoc files the docs pages serve into assets/, with their
// licences and versions, so the published package needs neither `swagger-ui-dist` nor `redoc`
// (and ReDoc's React dependency tree) at run time. The scripts and the style sheet are stored
// brotli-compressed (`<file>.br`, about a fifth of the size): every app installs them, few serve them,
// and the server decompresses each once, on first use.
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants } from 'node:zlib';

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
const COMPRESSED = /\.(js|css)$/;
const versions = {};
rmSync(join(root, 'assets'), { recursive: true, force: true });
for (const [pkg, files] of Object.entries(FILES)) {
  const from = dirname(require.resolve(`${pkg}/package.json`));
  const { name, version } = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8'));
  versions[pkg] = { name, version };
  for (const file of files) {
    const to = join(root, 'assets', pkg, file);
    mkdirSync(dirname(to), { recursive: true });
    if (!COMPRESSED.test(file)) {
      copyFileSync(join(from, file), to);
      continue;
    }
    const bytes = readFileSync(join(from, file));
    const params = {
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      // 9, not 11: within 10 % of the smallest, in a twentieth of the build time.
      [constants.BROTLI_PARAM_QUALITY]: 9,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    };
    writeFileSync(`${to}.br`, brotliCompressSync(bytes, { params }));
  }
}
writeFileSync(join(root, 'assets', 'versions.json'), `${JSON.stringify(versions, null, 2)}\n`);
