import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Tests run against each package's TypeScript source (the `@fnapi/source` export condition), not
// its build output.
const source = '@fnapi/source';

export default defineConfig({
  resolve: { conditions: [source, ...defaultClientConditions] },
  ssr: { resolve: { conditions: [source, ...defaultServerConditions], externalConditions: [source] } },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    typecheck: {
      enabled: true,
      include: ['packages/*/test/**/*.test-d.ts', 'examples/*/test/**/*.test-d.ts'],
      tsconfig: './tsconfig.json',
    },
  },
});
