// Three cached request dependencies (one used by the two others, so caching is exercised) beside the
// same code written inline: `/deps` and `/inline` answer the same body. Default options otherwise.
import { API, dependency } from '@fnapi/core';

function loadSettings() {
  return { greeting: 'Hello', locale: 'en' };
}
function findUser(settings: { locale: string }) {
  return { name: 'Ada', locale: settings.locale };
}
function auditLine(settings: { greeting: string }, user: { name: string }) {
  return `${settings.greeting}, ${user.name}`;
}

const settings = dependency({}, () => loadSettings());
const user = dependency({ uses: { settings } }, ({ settings }) => findUser(settings));
const audit = dependency({ uses: { settings, user } }, ({ settings, user }) => auditLine(settings, user));

const app = new API();
app.get('/deps', { uses: { settings, user, audit } }, ({ user, audit }) => ({ message: audit, user: user.name }));
app.get('/inline', () => {
  const s = loadSettings();
  const u = findUser(s);
  return { message: auditLine(s, u), user: u.name };
});
const server = await app.run({ host: '127.0.0.1', port: 0, handleSignals: false });
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
