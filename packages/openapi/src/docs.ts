// Node's built-ins at their point of use: this module loads on workerd too, where there is neither a
// file system nor `import.meta.url` to resolve files by, and the pages then take their assets from the
// CDN (or `assetsUrl`).
import { builtin } from '@fnapi/validation/builtins';

export interface DocsOptions {
  /** Shown in the page titles. */
  title: string;
  /** Where the app serves the document; Swagger UI and ReDoc fetch it from here (same origin). */
  openapiUrl: string;
  /** Swagger UI page path, or `null` for none. */
  docsUrl: string | null;
  /** ReDoc page path, or `null` for none. */
  redocUrl: string | null;
  /**
   * Base URL to load Swagger UI and ReDoc from instead of serving them, laid out like npm CDNs
   * (`<cdn>/swagger-ui-dist@<version>/swagger-ui.css`), e.g. `https://cdn.jsdelivr.net/npm`.
   */
  cdn?: string;
  /**
   * Where the app serves Swagger UI's and ReDoc's files itself (a path or URL prefix), by their package
   * file names: `<assetsUrl>/swagger-ui.css`, `/swagger-ui-bundle.js`, `/favicon-32x32.png` and
   * `/redoc.standalone.js`. The pages link there instead of to fnapi's own copies or a CDN.
   */
  assetsUrl?: string;
  /** Path prefix of the served assets; default `/_fnapi/docs`. */
  assetsPrefix?: string;
  /** The page at `docsUrl`: Swagger UI (default) or Scalar's API reference. */
  ui?: DocsUi;
}

/** The page at `docsUrl`. */
export type DocsUi = 'swagger' | 'scalar';

/** The optional peer that serves `docsUi: 'scalar'`. */
export const SCALAR_PACKAGE = '@scalar/api-reference';

/** One GET route the app mounts. */
export interface DocsRoute {
  path: string;
  contentType: string;
  headers: Record<string, string>;
  body(): Promise<string | Uint8Array>;
}

/** Where the assets are served unless `assetsPrefix` says otherwise. */
export const DEFAULT_ASSETS_PREFIX = '/_fnapi/docs';

/** The prebuilt files copied in by the build (src/ and dist/ both sit one level below the package root). */
const assetsDir = () => new URL('../assets/', import.meta.url);

/**
 * Where a file of `swagger-ui-dist` or `redoc` is: the copy the build put in assets/ (what a published
 * package has), else the package itself (the workspace, running from sources before a build).
 */
function locate(specifier: string): string {
  const copied = builtin('node:url').fileURLToPath(new URL(specifier, assetsDir()));
  return builtin('node:fs').existsSync(copied)
    ? copied
    : builtin('node:module')
        .createRequire(import.meta.url)
        .resolve(specifier);
}

/**
 * The bytes of a file of `swagger-ui-dist` or `redoc`. The build stores the scripts and the style sheet
 * brotli-compressed (`<file>.br`) to keep the install small: those are decompressed here.
 */
async function readAsset(specifier: string): Promise<Buffer> {
  const compressed = builtin('node:url').fileURLToPath(new URL(`${specifier}.br`, assetsDir()));
  if (!builtin('node:fs').existsSync(compressed)) return builtin('node:fs').promises.readFile(locate(specifier));
  const bytes = await builtin('node:fs').promises.readFile(compressed);
  const { brotliDecompress } = builtin('node:zlib');
  return new Promise((resolve, reject) => brotliDecompress(bytes, (error, out) => (error ? reject(error) : resolve(out))));
}

interface PackageInfo {
  name: string;
  version: string;
}

type DocsPackages = { swagger: PackageInfo; redoc: PackageInfo; self: PackageInfo };

/**
 * The versions this package installs. An app bundled into one file (as for AWS Lambda) has no
 * package files on disk to serve; its pages then load Swagger UI and ReDoc at these versions from
 * `FALLBACK_CDN`. A test keeps them equal to the installed ones.
 */
export const BUNDLED_DOCS_PACKAGES: DocsPackages = {
  swagger: { name: 'swagger-ui-dist', version: '5.35.0' },
  redoc: { name: 'redoc', version: '2.5.4' },
  self: { name: '@fnapi/openapi', version: '0.1.0' },
};

export const FALLBACK_CDN = 'https://cdn.jsdelivr.net/npm';

/**
 * The version of `@scalar/api-reference` a page loads from the CDN where the package is not on disk
 * (Workers, a bundle); a test keeps it equal to the installed one.
 */
export const BUNDLED_SCALAR_PACKAGE: PackageInfo = { name: SCALAR_PACKAGE, version: '1.76.4' };

/** The file of `@scalar/api-reference` the page loads (a browser bundle, its styles inside). */
const SCALAR_FILE = 'dist/browser/standalone.js';

/**
 * Subresource Integrity of the CDN files at the versions above (a test keeps them equal to the
 * installed files): the pages' CDN tags carry them, so a changed file on the CDN is refused.
 */
export const BUNDLED_DOCS_INTEGRITY: Record<string, string> = {
  'swagger-ui-dist/swagger-ui.css': 'sha384-WlYgdmXYOOBWL5apwjDEZwN+U3HmXSSu5R6V5aGxEcf7z+KuRNwBhoxKVN1i3D5I',
  'swagger-ui-dist/swagger-ui-bundle.js': 'sha384-gjRm0bEPMeTmMh5jT2cHccIwCUZSTd8YC+j0d0sXw0MdGEfScduGpSyF3ZSSLkX9',
  'redoc/bundles/redoc.standalone.js': 'sha384-w447zOpYfw/1Tv/5AK9NfHTlQIqE3RVR6KY62jCyy9zNDgO64cMwGGP1Fj0zJVf5',
  '@scalar/api-reference/dist/browser/standalone.js': 'sha384-hwB9WroDTpZaI38gr+u9CXA6ksz5gUYgD2GxXazKl/agT1L2GWUiRFWGJYNiFu4Q',
};

let packages: DocsPackages | null | undefined;

/** The installed packages' names and versions, or null when their files are not on disk (a bundle). */
export function installedDocsPackages(): DocsPackages | null {
  if (packages === undefined) {
    try {
      packages = readPackages();
    } catch {
      packages = null;
    }
  }
  return packages;
}

function readPackages(): DocsPackages | null {
  const read = (path: string): PackageInfo => {
    const { name, version } = JSON.parse(builtin('node:fs').readFileSync(path, 'utf8')) as PackageInfo;
    return { name, version };
  };
  // This package's own file first: a bundle (an app's cold start on Lambda) usually has none beside
  // it, which one existence check tells far more cheaply than a failed package resolution does.
  const selfFile = builtin('node:url').fileURLToPath(new URL('../package.json', import.meta.url));
  if (!builtin('node:fs').existsSync(selfFile)) return null;
  const self = read(selfFile);
  return {
    swagger: read(locate('swagger-ui-dist/package.json')),
    redoc: read(locate('redoc/package.json')),
    self,
  };
}

let scalar: { info: PackageInfo; file: string } | null | undefined;

/**
 * The installed `@scalar/api-reference` (its name, version and browser bundle), or null when it is not
 * installed or there is no file system. Its `exports` list neither `package.json` nor the bundle, so
 * the package is found through its style sheet, which they do list.
 */
export function installedScalar(): { info: PackageInfo; file: string } | null {
  if (scalar === undefined) {
    try {
      const { dirname, join } = builtin('node:path');
      const css = builtin('node:module')
        .createRequire(import.meta.url)
        .resolve(`${SCALAR_PACKAGE}/style.css`);
      const root = join(dirname(css), '..');
      const { name, version } = JSON.parse(builtin('node:fs').readFileSync(join(root, 'package.json'), 'utf8')) as PackageInfo;
      scalar = { info: { name, version }, file: join(root, SCALAR_FILE) };
    } catch {
      scalar = null;
    }
  }
  return scalar;
}

/**
 * Checks the `docsUi` option: `'scalar'` served from local files needs `@scalar/api-reference`
 * installed, and says so. Where there is no file system (Workers, a bundle), or with `cdn` or
 * `assetsUrl`, the page loads it from there instead.
 */
export function requireDocsUi(ui: unknown, where: { cdn?: string | undefined; assetsUrl?: string | undefined } = {}): void {
  if (ui !== 'swagger' && ui !== 'scalar') throw new Error(`docsUi is 'swagger' or 'scalar', got ${JSON.stringify(ui)}`);
  if (ui !== 'scalar' || where.cdn !== undefined || where.assetsUrl !== undefined) return;
  if (installedDocsPackages() === null) return;
  if (installedScalar() === null) {
    throw new Error(
      `docsUi: 'scalar' needs the package ${SCALAR_PACKAGE}, an optional peer of @fnapi/openapi: install it (npm install ${SCALAR_PACKAGE}), or use docsUi: 'swagger'`,
    );
  }
}

const fileCache = new Map<string, Promise<Uint8Array>>();

/** Reads a docs asset on first use (through `patch`, if given) and keeps it in memory. */
function loadFile(specifier: string, patch?: (text: string) => string): Promise<Uint8Array> {
  let pending = fileCache.get(specifier);
  if (!pending) {
    pending = (
      specifier.startsWith(`${SCALAR_PACKAGE}/`) ? builtin('node:fs').promises.readFile(installedScalar()!.file) : readAsset(specifier)
    ).then((buffer) =>
      patch
        ? new TextEncoder().encode(patch(buffer.toString('utf8')))
        : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength),
    );
    pending.catch(() => fileCache.delete(specifier));
    fileCache.set(specifier, pending);
  }
  return pending;
}

/** Swagger UI start-up, served as a file so the page needs no inline script. Reads its settings from the page. */
const SWAGGER_INIT = `'use strict';
(function () {
  var element = document.getElementById('swagger-ui');
  var url = element.getAttribute('data-openapi-url');
  window.ui = SwaggerUIBundle({
    url: url,
    dom_id: '#swagger-ui',
    deepLinking: true,
    layout: 'BaseLayout',
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
    showExtensions: true,
    showCommonExtensions: true,
    validatorUrl: null,
    persistAuthorization: false
  });
})();
`;

/**
 * Scalar's start-up, served as a file (no inline script): its own fonts off and no proxy, so the page
 * loads nothing from outside the app; no telemetry, no AI agent, no developer tools.
 */
const SCALAR_INIT = `'use strict';
(function () {
  // Not Scalar's own '#api-reference', which its bundle would mount a second time, unconfigured.
  var element = document.getElementById('fnapi-scalar');
  Scalar.createApiReference(element, {
    url: element.getAttribute('data-openapi-url'),
    withDefaultFonts: false,
    telemetry: false,
    showDeveloperTools: 'never',
    agent: { disabled: true }
  });
})();
`;

/**
 * ReDoc's sidebar footer always loads its logo from cdn.redoc.ly; served locally, it gets a blank
 * data: image instead, so the page makes no third-party request (and the CSP reports no violation).
 */
const REDOC_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const BLANK_IMAGE = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E";
const patchRedoc = (text: string) => text.replaceAll(REDOC_LOGO, BLANK_IMAGE);

const ASSET_HEADERS = {
  'cache-control': 'public, max-age=31536000, immutable',
  'x-content-type-options': 'nosniff',
};

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const PNG = 'image/png';
const HTML = 'text/html; charset=utf-8';

function escapeHtml(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}

function trimSlash(value: string): string {
  return value.endsWith('/') ? value.slice(0, -1) : value;
}

function originOf(base: string): string {
  let url: URL | undefined;
  try {
    url = new URL(base);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new Error(`docs cdn must be an absolute http(s) URL, got ${JSON.stringify(base)}`);
  }
  return url.origin;
}

/** The origin of an absolute http(s) URL, for the pages' policy; undefined for a path (same origin). */
function absoluteOrigin(base: string): string | undefined {
  return /^https?:\/\//i.test(base) ? originOf(base) : undefined;
}

function csp(directives: Record<string, string[]>): string {
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join('; ');
}

function pageHeaders(policy: string): Record<string, string> {
  return {
    'content-security-policy': policy,
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
  };
}

/**
 * The GET routes that serve the documentation: the Swagger UI page at `docsUrl`, the ReDoc page at
 * `redocUrl`, and the files they load under `<assetsPrefix>/<package>@<version>/…` (long-lived, immutable
 * caching; a new version is a new path). With `cdn`, Swagger UI and ReDoc come from that base URL instead,
 * and only the small Swagger UI start-up script is served by the app.
 */
export function docsRoutes(options: DocsOptions): DocsRoute[] {
  const { docsUrl, redocUrl } = options;
  if (docsUrl === null && redocUrl === null) return [];

  const installed = installedDocsPackages();
  const { swagger, redoc, self } = installed ?? BUNDLED_DOCS_PACKAGES;
  const prefix = trimSlash(options.assetsPrefix ?? DEFAULT_ASSETS_PREFIX);
  // Without the files on disk (a bundled app) the pages still work, from the CDN.
  const assetsUrl = options.assetsUrl !== undefined ? trimSlash(options.assetsUrl) : undefined;
  const cdn = options.cdn !== undefined ? trimSlash(options.cdn) : installed === null && assetsUrl === undefined ? FALLBACK_CDN : undefined;
  const cdnOrigin = assetsUrl !== undefined ? absoluteOrigin(assetsUrl) : cdn !== undefined ? originOf(cdn) : undefined;
  const thirdPartyBase = cdn ?? prefix;
  // The pinned files' hashes hold for a CDN serving these very versions.
  const pinned = swagger.version === BUNDLED_DOCS_PACKAGES.swagger.version && redoc.version === BUNDLED_DOCS_PACKAGES.redoc.version;
  const integrity = (specifier: string): string => {
    const hash = cdn !== undefined && assetsUrl === undefined && pinned ? BUNDLED_DOCS_INTEGRITY[specifier] : undefined;
    return hash === undefined ? '' : ` integrity="${hash}" crossorigin="anonymous"`;
  };

  const swaggerDir = `${swagger.name}@${swagger.version}`;
  const redocDir = `${redoc.name}@${redoc.version}`;
  const selfDir = `fnapi-openapi@${self.version}`;

  const pages: DocsRoute[] = [];
  const assets: DocsRoute[] = [];
  const asset = (path: string, contentType: string, body: () => Promise<string | Uint8Array>) => {
    if (assets.some((route) => route.path === path)) return;
    assets.push({ path, contentType, headers: { ...ASSET_HEADERS }, body });
  };
  const served = (dir: string, file: string, specifier: string, contentType: string, patch?: (text: string) => string) => {
    if (assetsUrl !== undefined) return `${assetsUrl}/${file.slice(file.lastIndexOf('/') + 1)}`;
    const path = `${prefix}/${dir}/${file}`;
    if (cdn === undefined) asset(path, contentType, () => loadFile(specifier, patch));
    return `${thirdPartyBase}/${dir}/${file}`;
  };

  const extra = cdnOrigin !== undefined ? [cdnOrigin] : [];
  const title = escapeHtml(options.title);
  const specUrl = escapeHtml(options.openapiUrl);

  if (docsUrl !== null && options.ui === 'scalar') {
    const local = installedScalar();
    const scalarInfo = local?.info ?? BUNDLED_SCALAR_PACKAGE;
    const specifier = `${SCALAR_PACKAGE}/${SCALAR_FILE}`;
    // Served from the installed package; without it on disk (Workers, a bundle), from the CDN.
    const scalarCdn = cdn ?? (local === null && assetsUrl === undefined ? FALLBACK_CDN : undefined);
    let script: string;
    if (assetsUrl !== undefined) script = `${assetsUrl}/standalone.js`;
    else if (scalarCdn !== undefined) script = `${scalarCdn}/${scalarInfo.name}@${scalarInfo.version}/${SCALAR_FILE}`;
    else {
      script = `${prefix}/${scalarInfo.name}@${scalarInfo.version}/${SCALAR_FILE}`;
      asset(script, JS, () => loadFile(specifier));
    }
    const scalarIntegrity =
      assetsUrl === undefined && scalarCdn !== undefined && scalarInfo.version === BUNDLED_SCALAR_PACKAGE.version
        ? ` integrity="${BUNDLED_DOCS_INTEGRITY[specifier]}" crossorigin="anonymous"`
        : '';
    const scalarOrigin = assetsUrl !== undefined ? absoluteOrigin(assetsUrl) : scalarCdn !== undefined ? originOf(scalarCdn) : undefined;
    const scalarExtra = scalarOrigin !== undefined ? [scalarOrigin] : [];
    const icon = served(swaggerDir, 'favicon-32x32.png', 'swagger-ui-dist/favicon-32x32.png', PNG);
    const initPath = `${prefix}/${selfDir}/scalar-init.js`;
    asset(initPath, JS, async () => SCALAR_INIT);
    const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} - API Reference</title>
<link rel="icon" type="image/png" href="${escapeHtml(icon)}">
</head>
<body>
<div id="fnapi-scalar" data-openapi-url="${specUrl}"></div>
<script src="${escapeHtml(script)}"${scalarIntegrity}></script>
<script src="${escapeHtml(initPath)}"></script>
</body>
</html>
`;
    const policy = csp({
      'default-src': ["'none'"],
      'script-src': ["'self'", ...scalarExtra],
      // Scalar injects its styles as <style> elements at run time.
      'style-src': ["'self'", "'unsafe-inline'", ...scalarExtra],
      'img-src': ["'self'", 'data:', 'blob:', ...scalarExtra],
      'font-src': ["'self'", 'data:', ...scalarExtra],
      'worker-src': ["'self'", 'blob:'],
      'connect-src': ["'self'"],
      'base-uri': ["'none'"],
      'form-action': ["'self'"],
      'frame-ancestors': ["'self'"],
    });
    pages.push({ path: docsUrl, contentType: HTML, headers: pageHeaders(policy), body: async () => html });
  } else if (docsUrl !== null) {
    const css = served(swaggerDir, 'swagger-ui.css', 'swagger-ui-dist/swagger-ui.css', CSS);
    const bundle = served(swaggerDir, 'swagger-ui-bundle.js', 'swagger-ui-dist/swagger-ui-bundle.js', JS);
    const icon = served(swaggerDir, 'favicon-32x32.png', 'swagger-ui-dist/favicon-32x32.png', PNG);
    const initPath = `${prefix}/${selfDir}/swagger-ui-init.js`;
    asset(initPath, JS, async () => SWAGGER_INIT);

    const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} - Swagger UI</title>
<link rel="icon" type="image/png" href="${escapeHtml(icon)}">
<link rel="stylesheet" href="${escapeHtml(css)}"${integrity('swagger-ui-dist/swagger-ui.css')}>
</head>
<body>
<div id="swagger-ui" data-openapi-url="${specUrl}"></div>
<script src="${escapeHtml(bundle)}"${integrity('swagger-ui-dist/swagger-ui-bundle.js')}></script>
<script src="${escapeHtml(initPath)}"></script>
</body>
</html>
`;
    const policy = csp({
      'default-src': ["'none'"],
      'script-src': ["'self'", ...extra],
      'style-src': ["'self'", ...extra],
      'img-src': ["'self'", 'data:', ...extra],
      'font-src': ["'self'", 'data:', ...extra],
      'connect-src': ["'self'"],
      'base-uri': ["'none'"],
      'form-action': ["'self'"],
      'frame-ancestors': ["'self'"],
    });
    pages.push({ path: docsUrl, contentType: HTML, headers: pageHeaders(policy), body: async () => html });
  }

  if (redocUrl !== null) {
    const script = served(redocDir, 'bundles/redoc.standalone.js', 'redoc/bundles/redoc.standalone.js', JS, patchRedoc);
    const icon = served(swaggerDir, 'favicon-32x32.png', 'swagger-ui-dist/favicon-32x32.png', PNG);
    const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} - ReDoc</title>
<link rel="icon" type="image/png" href="${escapeHtml(icon)}">
</head>
<body>
<redoc spec-url="${specUrl}"></redoc>
<script src="${escapeHtml(script)}"${integrity('redoc/bundles/redoc.standalone.js')}></script>
</body>
</html>
`;
    const policy = csp({
      'default-src': ["'none'"],
      'script-src': ["'self'", ...extra],
      // ReDoc's styled-components inject <style> elements at run time.
      'style-src': ["'self'", "'unsafe-inline'", ...extra],
      'img-src': ["'self'", 'data:', ...extra],
      'font-src': ["'self'", 'data:', ...extra],
      // The search index runs in a worker ReDoc builds from a blob: URL.
      'worker-src': ["'self'", 'blob:'],
      'connect-src': ["'self'"],
      'base-uri': ["'none'"],
      'form-action': ["'self'"],
      'frame-ancestors': ["'self'"],
    });
    pages.push({ path: redocUrl, contentType: HTML, headers: pageHeaders(policy), body: async () => html });
  }

  return [...pages, ...assets];
}
