import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { docsRoutes, type DocsRoute } from '../src/index.js';

const require = createRequire(import.meta.url);
const version = (name: string) => (require(`${name}/package.json`) as { version: string }).version;
const SWAGGER = `swagger-ui-dist@${version('swagger-ui-dist')}`;
const REDOC = `redoc@${version('redoc')}`;
const SELF = `fnapi-openapi@${(require('../package.json') as { version: string }).version}`;

const defaults = { title: 'Demo <API>', openapiUrl: '/openapi.json', docsUrl: '/docs', redocUrl: '/redoc' };

function byPath(routes: DocsRoute[]): Map<string, DocsRoute> {
  return new Map(routes.map((r) => [r.path, r]));
}

async function text(route: DocsRoute): Promise<string> {
  const body = await route.body();
  return typeof body === 'string' ? body : new TextDecoder().decode(body);
}

/** Every src/href in the page. */
function references(html: string): string[] {
  return [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
}

function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy.split(';').map((part) => {
      const [name, ...sources] = part.trim().split(/\s+/);
      return [name!, sources];
    }),
  );
}

describe('docsRoutes with both pages', () => {
  const routes = docsRoutes(defaults);
  const map = byPath(routes);

  it('lists the pages first, then each asset once', () => {
    expect(routes.map((r) => r.path)).toEqual([
      '/docs',
      '/redoc',
      `/_fnapi/docs/${SWAGGER}/swagger-ui.css`,
      `/_fnapi/docs/${SWAGGER}/swagger-ui-bundle.js`,
      `/_fnapi/docs/${SWAGGER}/favicon-32x32.png`,
      `/_fnapi/docs/${SELF}/swagger-ui-init.js`,
      `/_fnapi/docs/${REDOC}/bundles/redoc.standalone.js`,
    ]);
  });

  it('serves the Swagger UI page with a strict CSP and no inline script', async () => {
    const page = map.get('/docs')!;
    expect(page.contentType).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const csp = directives(page.headers['content-security-policy']!);
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('style-src')).toEqual(["'self'"]);
    expect(csp.get('connect-src')).toEqual(["'self'"]);
    expect(csp.get('img-src')).toEqual(["'self'", 'data:']);
    expect(page.headers['content-security-policy']).not.toContain('unsafe-eval');

    const html = await text(page);
    expect(html).toContain('<title>Demo &lt;API&gt; - Swagger UI</title>');
    expect(html).toContain('data-openapi-url="/openapi.json"');
    // Every <script> loads a file: nothing inline (and the page has scripts, so the loop checks something).
    const scripts = html.match(/<script[^>]*>[\s\S]*?<\/script>/g) ?? [];
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toMatch(/^<script src="[^"]+"><\/script>$/);
    expect(html).not.toMatch(/\son\w+=/);
    expect(html).not.toContain('<style');
  });

  it('serves the ReDoc page with worker-src blob: and a spec-url element', async () => {
    const page = map.get('/redoc')!;
    expect(page.contentType).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    const csp = directives(page.headers['content-security-policy']!);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('worker-src')).toContain('blob:');
    expect(csp.get('connect-src')).toEqual(["'self'"]);
    expect(csp.get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
    const html = await text(page);
    expect(html).toContain('<title>Demo &lt;API&gt; - ReDoc</title>');
    expect(html).toContain('<redoc spec-url="/openapi.json"></redoc>');
    const scripts = html.match(/<script[^>]*>[\s\S]*?<\/script>/g) ?? [];
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toMatch(/^<script src="[^"]+"><\/script>$/);
  });

  it('pages reference only assets the app itself serves', async () => {
    for (const path of ['/docs', '/redoc']) {
      const refs = references(await text(map.get(path)!));
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of refs) {
        expect(ref.startsWith('/_fnapi/docs/')).toBe(true);
        expect(map.has(ref)).toBe(true);
      }
    }
  });

  it('serves each asset with its content type and immutable caching', async () => {
    const expectations: Array<[string, string, string]> = [
      [`/_fnapi/docs/${SWAGGER}/swagger-ui.css`, 'text/css; charset=utf-8', 'swagger-ui-dist/swagger-ui.css'],
      [`/_fnapi/docs/${SWAGGER}/swagger-ui-bundle.js`, 'text/javascript; charset=utf-8', 'swagger-ui-dist/swagger-ui-bundle.js'],
      [`/_fnapi/docs/${SWAGGER}/favicon-32x32.png`, 'image/png', 'swagger-ui-dist/favicon-32x32.png'],
    ];
    for (const [path, type, file] of expectations) {
      const route = map.get(path)!;
      expect(route.contentType).toBe(type);
      expect(route.headers).toEqual({ 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff' });
      const body = await route.body();
      expect(body).toBeInstanceOf(Uint8Array);
      expect(Buffer.from(body as Uint8Array).equals(readFileSync(require.resolve(file)))).toBe(true);
    }
  });

  it('serves ReDoc without its third-party logo URL', async () => {
    const route = map.get(`/_fnapi/docs/${REDOC}/bundles/redoc.standalone.js`)!;
    expect(route.contentType).toBe('text/javascript; charset=utf-8');
    expect(route.headers).toEqual({ 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff' });
    const original = readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
    expect(original).toContain('https://cdn.redoc.ly/redoc/logo-mini.svg');
    const served = await text(route);
    expect(served).not.toMatch(/https:\/\/cdn\.redoc\.ly/);
    expect(served.length).toBeGreaterThan(original.length - 100);
  });

  it('keeps an asset in memory after the first read', async () => {
    const route = map.get(`/_fnapi/docs/${SWAGGER}/swagger-ui-bundle.js`)!;
    const [a, b] = [await route.body(), await route.body()];
    expect(a).toBe(b);
    const fresh = byPath(docsRoutes(defaults)).get(route.path)!;
    expect(await fresh.body()).toBe(a);
  });

  it('serves the Swagger UI start-up script, which reads the URL from the page', async () => {
    const route = map.get(`/_fnapi/docs/${SELF}/swagger-ui-init.js`)!;
    expect(route.contentType).toBe('text/javascript; charset=utf-8');
    expect(route.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const js = await text(route);
    expect(js).toContain("getAttribute('data-openapi-url')");
    expect(js).toContain('SwaggerUIBundle(');
    expect(js).toContain('validatorUrl: null');
    expect(() => new Function(js)).not.toThrow();
  });
});

describe('docsRoutes options', () => {
  it('escapes the openapi URL into the pages', async () => {
    const map = byPath(docsRoutes({ ...defaults, openapiUrl: '/api/openapi.json?x="1"&y=2' }));
    expect(await text(map.get('/docs')!)).toContain('data-openapi-url="/api/openapi.json?x=&quot;1&quot;&amp;y=2"');
    expect(await text(map.get('/redoc')!)).toContain('spec-url="/api/openapi.json?x=&quot;1&quot;&amp;y=2"');
  });

  it('serves only what Swagger UI needs when ReDoc is off', () => {
    const paths = docsRoutes({ ...defaults, redocUrl: null }).map((r) => r.path);
    expect(paths).toContain('/docs');
    expect(paths).not.toContain('/redoc');
    expect(paths.some((p) => p.includes('redoc'))).toBe(false);
  });

  it('serves only what ReDoc needs when Swagger UI is off', () => {
    const paths = docsRoutes({ ...defaults, docsUrl: null }).map((r) => r.path);
    expect(paths).toEqual(['/redoc', `/_fnapi/docs/${REDOC}/bundles/redoc.standalone.js`, `/_fnapi/docs/${SWAGGER}/favicon-32x32.png`]);
  });

  it('serves nothing when both pages are off', () => {
    expect(docsRoutes({ ...defaults, docsUrl: null, redocUrl: null })).toEqual([]);
  });

  it('takes another asset prefix', async () => {
    const routes = docsRoutes({ ...defaults, assetsPrefix: '/static/docs/' });
    const map = byPath(routes);
    for (const ref of references(await text(map.get('/docs')!))) {
      expect(ref.startsWith('/static/docs/')).toBe(true);
      expect(map.has(ref)).toBe(true);
    }
  });

  it('loads Swagger UI and ReDoc from a CDN when asked, and the CSP allows it', async () => {
    const cdn = 'https://cdn.jsdelivr.net/npm/';
    const routes = docsRoutes({ ...defaults, cdn });
    const map = byPath(routes);
    // Only the pages and the tiny start-up script are served.
    expect(routes.map((r) => r.path)).toEqual(['/docs', '/redoc', `/_fnapi/docs/${SELF}/swagger-ui-init.js`]);

    const swagger = await text(map.get('/docs')!);
    expect(references(swagger)).toEqual([
      `https://cdn.jsdelivr.net/npm/${SWAGGER}/favicon-32x32.png`,
      `https://cdn.jsdelivr.net/npm/${SWAGGER}/swagger-ui.css`,
      `https://cdn.jsdelivr.net/npm/${SWAGGER}/swagger-ui-bundle.js`,
      `/_fnapi/docs/${SELF}/swagger-ui-init.js`,
    ]);
    const csp = directives(map.get('/docs')!.headers['content-security-policy']!);
    expect(csp.get('script-src')).toEqual(["'self'", 'https://cdn.jsdelivr.net']);
    expect(csp.get('style-src')).toEqual(["'self'", 'https://cdn.jsdelivr.net']);
    expect(csp.get('connect-src')).toEqual(["'self'"]);

    const redoc = await text(map.get('/redoc')!);
    expect(references(redoc)).toContain(`https://cdn.jsdelivr.net/npm/${REDOC}/bundles/redoc.standalone.js`);
    expect(directives(map.get('/redoc')!.headers['content-security-policy']!).get('script-src')).toEqual([
      "'self'",
      'https://cdn.jsdelivr.net',
    ]);
  });

  it('refuses a CDN that is not an absolute URL', () => {
    expect(() => docsRoutes({ ...defaults, cdn: 'cdn.example' })).toThrow(/absolute/);
  });
});

describe('bundled apps', () => {
  it('BUNDLED_DOCS_PACKAGES names the installed versions (the CDN fallback of a bundled app loads these)', async () => {
    const { BUNDLED_DOCS_PACKAGES, installedDocsPackages } = await import('../src/docs.js');
    expect(installedDocsPackages()).toEqual(BUNDLED_DOCS_PACKAGES);
  });

  it("BUNDLED_DOCS_INTEGRITY holds the installed files' SHA-384 (the CDN tags carry them)", async () => {
    const { createHash } = await import('node:crypto');
    const { BUNDLED_DOCS_INTEGRITY, installedScalar, SCALAR_PACKAGE } = await import('../src/docs.js');
    for (const [specifier, hash] of Object.entries(BUNDLED_DOCS_INTEGRITY)) {
      // Scalar's `exports` do not list its browser bundle: found through the package.
      const file = specifier.startsWith(`${SCALAR_PACKAGE}/`) ? installedScalar()!.file : require.resolve(specifier);
      expect(`sha384-${createHash('sha384').update(readFileSync(file)).digest('base64')}`).toBe(hash);
    }
  });

  it('BUNDLED_SCALAR_PACKAGE names the installed @scalar/api-reference (Workers and bundles load it from the CDN)', async () => {
    const { BUNDLED_SCALAR_PACKAGE, installedScalar } = await import('../src/docs.js');
    expect(installedScalar()!.info).toEqual(BUNDLED_SCALAR_PACKAGE);
  });

  it("a CDN Scalar page carries the bundle's integrity; its start-up turns the default fonts off and sets no proxy", async () => {
    const routes = byPath(docsRoutes({ ...defaults, cdn: 'https://cdn.jsdelivr.net/npm', ui: 'scalar' }));
    const page = await text(routes.get('/docs')!);
    expect(page).toMatch(
      /<script src="https:\/\/cdn\.jsdelivr\.net\/npm\/@scalar\/api-reference@[\d.]+\/dist\/browser\/standalone\.js" integrity="sha384-[^"]+" crossorigin="anonymous"><\/script>/,
    );
    expect(routes.get('/docs')!.headers['content-security-policy']).toContain('https://cdn.jsdelivr.net');
    const init = [...routes.values()].find((route) => route.path.endsWith('/scalar-init.js'))!;
    const script = await text(init);
    expect(script).toContain('withDefaultFonts: false');
    expect(script).not.toMatch(/proxyUrl/);
  });

  it('a CDN page carries integrity and crossorigin on every script and style sheet', async () => {
    const routes = byPath(docsRoutes({ ...defaults, cdn: 'https://cdn.jsdelivr.net/npm' }));
    const swagger = await text(routes.get('/docs')!);
    expect(swagger).toMatch(
      /<link rel="stylesheet" href="https:\/\/cdn\.jsdelivr\.net\/npm\/swagger-ui-dist@[^"]+" integrity="sha384-[^"]+" crossorigin="anonymous">/,
    );
    expect(swagger).toMatch(/swagger-ui-bundle\.js" integrity="sha384-[^"]+" crossorigin="anonymous"><\/script>/);
    expect(await text(routes.get('/redoc')!)).toMatch(/redoc\.standalone\.js" integrity="sha384-[^"]+" crossorigin="anonymous"><\/script>/);
  });
});

describe('assetsUrl (the API option docsAssetsUrl)', () => {
  it('links the files where the app serves them, by their package file names, and serves none itself', async () => {
    const routes = docsRoutes({ ...defaults, assetsUrl: '/static/docs/' });
    const paths = routes.map((route) => route.path);
    expect(paths.filter((path) => path.includes('swagger-ui-dist') || path.includes('redoc@'))).toEqual([]);
    const page = await text(byPath(routes).get('/docs')!);
    expect(page).toContain('href="/static/docs/swagger-ui.css"');
    expect(page).toContain('src="/static/docs/swagger-ui-bundle.js"');
    expect(page).toContain('href="/static/docs/favicon-32x32.png"');
    expect(page).not.toContain('integrity=');
    expect(await text(byPath(routes).get('/redoc')!)).toContain('src="/static/docs/redoc.standalone.js"');
  });

  it("allows an absolute assetsUrl's origin in the pages' policy", () => {
    const page = byPath(docsRoutes({ ...defaults, assetsUrl: 'https://assets.example.com/docs' })).get('/docs')!;
    expect(page.headers['content-security-policy']).toContain('https://assets.example.com');
  });
});
