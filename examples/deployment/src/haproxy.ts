// Writes an HAProxy configuration for instances of the app (the generator is `fnapi deploy haproxy`).
//
//   pnpm --filter @fnapi/example-deployment haproxy-config -- --port 8080 --servers 127.0.0.1:8001,127.0.0.1:8002
export { type HaproxyOptions, haproxyConfig } from '@fnapi/dev';
