import { build } from 'esbuild';
await build({
  entryPoints: ['/tmp/rt/app.ts'],
  outfile: '/tmp/rt/app.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: 'error',
});
