import { MCP_RUNTIME, provided } from '@fnapi/core/extend';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import { arbitraryFor } from './arbitraries.js';
import { type JsonSchema, SchemaBook } from './schemas.js';

/** What the tools check needs of an app: its Web handler, where `mcp(…)` left its runtime. */
export interface ToolCheckableApp {
  fetch(request: globalThis.Request): Promise<globalThis.Response>;
}

export interface ToolCheckOptions {
  /** Calls per tool, with arguments generated from its `inputSchema`; default 20. */
  runs?: number;
  seed?: number;
  /** Tools to check (by name); the others are left out. */
  only?: string[];
  skip?: string[];
  /** Sent with every MCP request (credentials for guarded tools). */
  headers?: Record<string, string>;
}

export interface ToolFailure {
  tool: string;
  arguments: unknown;
  problem: string;
}

export interface ToolReport {
  ok: boolean;
  tools: { name: string; calls: number; errors: number; skipped?: string }[];
  failures: ToolFailure[];
}

/**
 * Calls every MCP tool of the app through the official client (in process, through `app.fetch`) with
 * arguments generated from its `inputSchema`, and checks each result: a success's `structuredContent`
 * against the tool's `outputSchema`, an error's as a problem body, and never a 500 or a failed call.
 */
export async function checkTools(app: ToolCheckableApp, options: ToolCheckOptions = {}): Promise<ToolReport> {
  const runtime = provided(app as never, MCP_RUNTIME);
  if (runtime === undefined)
    throw new Error('fnapi check --mcp: the app has no MCP tools; add them with app.extend(mcp()) from @fnapi/mcp');
  const runs = options.runs ?? 20;
  const client = new Client({ name: 'fnapi-check', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://localhost${runtime.path}`), {
      requestInit: { headers: options.headers ?? {} },
      fetch: (url, init) => app.fetch(new globalThis.Request(url, init)),
    }),
  );
  const report: ToolReport = { ok: true, tools: [], failures: [] };
  try {
    const { tools } = await client.listTools();
    for (const tool of tools) {
      if (options.only?.length && !options.only.includes(tool.name)) continue;
      const summary: ToolReport['tools'][number] = { name: tool.name, calls: 0, errors: 0 };
      report.tools.push(summary);
      if (options.skip?.includes(tool.name)) {
        summary.skipped = 'skipped (--skip)';
        continue;
      }
      const input = tool.inputSchema as JsonSchema;
      const book = new SchemaBook(input);
      const samples = fc
        .sample(arbitraryFor(book, input, 'body'), { numRuns: runs * 4, ...(options.seed !== undefined ? { seed: options.seed } : {}) })
        .filter((value) => book.valid(input, value))
        .slice(0, runs);
      if (samples.length === 0) samples.push({});
      const output = tool.outputSchema as JsonSchema | undefined;
      const outputBook = output === undefined ? undefined : new SchemaBook(output);
      const fail = (args: unknown, problem: string) => {
        if (report.failures.some((failure) => failure.tool === tool.name && failure.problem === problem)) return;
        report.failures.push({ tool: tool.name, arguments: args, problem });
      };
      for (const args of samples) {
        summary.calls++;
        let result: { isError?: boolean; structuredContent?: unknown };
        try {
          result = (await client.callTool({ name: tool.name, arguments: args as Record<string, unknown> })) as typeof result;
        } catch (error) {
          fail(args, `the call failed: ${(error as Error).message}`);
          continue;
        }
        if (result.isError) {
          summary.errors++;
          const problem = result.structuredContent as { status?: unknown; title?: unknown } | undefined;
          if (typeof problem?.status !== 'number' || typeof problem.title !== 'string')
            fail(args, 'an error result without a problem body');
          else if (problem.status >= 500) fail(args, `answered ${problem.status}`);
        } else if (output !== undefined && !outputBook!.valid(output, result.structuredContent)) {
          fail(args, `structuredContent does not match the outputSchema: ${outputBook!.explain(output, result.structuredContent)}`);
        }
      }
    }
  } finally {
    await client.close();
  }
  report.ok = report.failures.length === 0;
  return report;
}

/** The tools report as `fnapi check --mcp` prints it. */
export function formatToolReport(report: ToolReport): string {
  const failed = new Set(report.failures.map((failure) => failure.tool));
  const lines = report.tools.map((tool) =>
    tool.skipped
      ? `- tool ${tool.name}  ${tool.skipped}`
      : `${failed.has(tool.name) ? '✗' : '✓'} tool ${tool.name}  ${tool.calls} calls; ${tool.errors} answered isError`,
  );
  for (const failure of report.failures) {
    lines.push('', `FAIL tool ${failure.tool}: ${failure.problem}`, `  arguments: ${JSON.stringify(failure.arguments).slice(0, 300)}`);
  }
  lines.push('', report.ok ? `All ${report.tools.length} tools answer as their schemas say` : `${report.failures.length} tool failures`);
  return lines.join('\n');
}
