import { Response, type CallNext, type Request } from '@fnapi/core';
import { type Duration, durationSeconds } from '@fnapi/core/extend';
import { Middleware } from './base.js';
import { appendVary } from './header-lists.js';

export interface CORSOptions {
  /** Origins allowed to read responses, e.g. `['https://app.example']`; `['*']` allows any. Default `['*']`. */
  allowOrigins?: readonly string[] | undefined;
  /** Methods a preflight allows. Default GET, POST, PUT, PATCH, DELETE, OPTIONS. */
  allowMethods?: readonly string[] | undefined;
  /** Request headers a preflight allows; `['*']` allows whatever is asked for. Default Content-Type, Authorization. */
  allowHeaders?: readonly string[] | undefined;
  /** Lets the browser send cookies and read the response of a credentialed request. Default false. */
  allowCredentials?: boolean | undefined;
  /**
   * Response headers the page may read beyond the CORS-safelisted ones; `Deprecation`, `Sunset`, `Link`
   * and `X-Request-ID` always are.
   */
  exposeHeaders?: readonly string[] | undefined;
  /** Seconds (or a string with a unit, `'10m'`) a browser may cache a preflight answer; any length. Default 600. */
  maxAge?: Duration | undefined;
}

const DEFAULT_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const DEFAULT_HEADERS = ['Content-Type', 'Authorization'];
/** What fnapi itself sends that a page may want: a deprecated endpoint's headers and the request id. */
const ALWAYS_EXPOSED = ['Deprecation', 'Sunset', 'Link', 'X-Request-ID'];

/**
 * Cross-origin resource sharing. Preflight requests (`OPTIONS` with `Origin` and
 * `Access-Control-Request-Method`) are answered with 204 here, before routing, so every route
 * accepts them; other requests pass on, and their responses (error responses included) get
 * `Access-Control-Allow-Origin` when the origin is allowed.
 */
export class CORSMiddleware extends Middleware {
  readonly allowOrigins: readonly string[];
  readonly allowMethods: readonly string[];
  readonly allowHeaders: readonly string[];
  readonly allowCredentials: boolean;
  readonly exposeHeaders: readonly string[];
  readonly maxAge: number;

  private readonly anyOrigin: boolean;
  private readonly anyHeader: boolean;
  private readonly origins: ReadonlySet<string>;
  private readonly methodsValue: string;
  private readonly headersValue: string;
  private readonly exposeValue: string;

  constructor(options: CORSOptions = {}) {
    super();
    this.allowOrigins = [...(options.allowOrigins ?? ['*'])];
    this.allowMethods = (options.allowMethods ?? DEFAULT_METHODS).map((m) => m.toUpperCase());
    this.allowHeaders = [...(options.allowHeaders ?? DEFAULT_HEADERS)];
    this.allowCredentials = options.allowCredentials ?? false;
    const own = options.exposeHeaders ?? [];
    const given = new Set(own.map((name) => name.toLowerCase()));
    this.exposeHeaders = [...own, ...ALWAYS_EXPOSED.filter((name) => !given.has(name.toLowerCase()))];
    // Whole seconds: the header takes no fraction.
    this.maxAge = Math.floor(durationSeconds('CORSMiddleware: maxAge', options.maxAge ?? 600));

    this.anyOrigin = this.allowOrigins.includes('*');
    if (this.anyOrigin && this.allowCredentials) {
      throw new Error(
        "CORSMiddleware: allowOrigins ['*'] cannot be combined with allowCredentials: true " +
          '(browsers refuse credentialed responses to a wildcard origin); list the allowed origins instead, ' +
          "e.g. allowOrigins: ['https://app.example']",
      );
    }
    // Origins are compared as browsers send them: scheme://host[:port], no trailing slash.
    this.origins = new Set(this.allowOrigins.map((o) => o.replace(/\/+$/, '').toLowerCase()));
    this.anyHeader = this.allowHeaders.includes('*');
    this.methodsValue = this.allowMethods.join(', ');
    this.headersValue = this.allowHeaders.join(', ');
    this.exposeValue = this.exposeHeaders.join(', ');
  }

  /** True when responses to this origin may be read by its pages. */
  isAllowedOrigin(origin: string): boolean {
    return this.anyOrigin || this.origins.has(origin.toLowerCase());
  }

  async dispatch(request: Request, callNext: CallNext): Promise<Response> {
    const origin = request.headers.get('origin');
    if (request.method === 'OPTIONS' && origin !== null && request.headers.has('access-control-request-method')) {
      return this.preflight(request, origin);
    }
    const response = await callNext(request);
    this.decorate(response, origin);
    return response;
  }

  private preflight(request: Request, origin: string): Response {
    const response = new Response(undefined, { statusCode: 204 });
    const headers = response.headers;
    if (!this.anyOrigin) headers.set('vary', 'Origin');
    if (!this.isAllowedOrigin(origin)) return response;
    headers.set('access-control-allow-origin', this.anyOrigin ? '*' : origin);
    if (this.allowCredentials) headers.set('access-control-allow-credentials', 'true');
    headers.set('access-control-allow-methods', this.methodsValue);
    if (this.anyHeader) {
      const requested = request.headers.get('access-control-request-headers');
      if (requested) {
        headers.set('access-control-allow-headers', requested);
        appendVary(response, 'Access-Control-Request-Headers');
      }
    } else if (this.headersValue) {
      headers.set('access-control-allow-headers', this.headersValue);
    }
    headers.set('access-control-max-age', String(this.maxAge));
    return response;
  }

  private decorate(response: Response, origin: string | null): void {
    // With a list of origins the response depends on Origin, whether or not this request sent one.
    if (!this.anyOrigin) appendVary(response, 'Origin');
    if (origin === null || !this.isAllowedOrigin(origin)) return;
    const headers = response.headers;
    headers.set('access-control-allow-origin', this.anyOrigin ? '*' : origin);
    if (this.allowCredentials) headers.set('access-control-allow-credentials', 'true');
    headers.set('access-control-expose-headers', this.exposeValue);
  }
}
