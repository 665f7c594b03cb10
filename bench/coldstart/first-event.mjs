// One cold start: import a bundled Lambda entry, answer one HTTP API (v2) event, and print the time
// since this process started (performance.now() counts from the process's time origin). Without a
// path it stops after the import (the instruction count's import-only process and its baseline).
const [bundle, path] = process.argv.slice(2);
const importStart = performance.now();
const { handler } = await import(bundle);
const imported = performance.now();
if (path === undefined) {
  process.stdout.write(`${JSON.stringify({ importMs: imported - importStart })}\n`);
} else {
  const event = {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'abcdef.lambda-url.us-east-1.on.aws', accept: 'application/json' },
    requestContext: {
      accountId: '123456789012',
      apiId: 'abcdef',
      domainName: 'abcdef.lambda-url.us-east-1.on.aws',
      domainPrefix: 'abcdef',
      http: { method: 'GET', path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'coldstart' },
      requestId: 'cold',
      routeKey: '$default',
      stage: '$default',
      time: '24/Nov/2026:10:00:00 +0000',
      timeEpoch: 1795514400000,
    },
    isBase64Encoded: false,
  };
  const result = await handler(event, { awsRequestId: 'cold', callbackWaitsForEmptyEventLoop: false });
  const answered = performance.now();
  if (result.statusCode !== 200) throw new Error(`unexpected answer ${JSON.stringify(result)}`);
  process.stdout.write(
    `${JSON.stringify({ importMs: imported - importStart, firstEventMs: answered - imported, totalMs: answered, body: result.body })}\n`,
  );
}
