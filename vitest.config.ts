import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Tests run against each package's TypeScript source, not its build output.
    conditions: ['@fnapi/source'],
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    typecheck: { enabled: true, include: ['packages/*/test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
});
