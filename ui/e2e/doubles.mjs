// Local stand-ins for the outside services the test servers talk to, which must be known
// when they start (playwright.config.ts runs this before them): Telegram's Bot API (one bot
// per instance, `telegram.api_url`) and a Web Push service (`push.allow_endpoints`).
// Tests drive and read them through /control/… (e2e/doubles.ts).
//
//   node e2e/doubles.mjs <port> <bot token> [<another bot token>…]
//
// Telegram, under /tg/bot<token>/<method> (https://core.telegram.org/bots/api): getMe,
// getUpdates (long poll, offset), sendMessage, editMessageText, answerCallbackQuery. Each
// token is a bot of its own with its own updates, so that two servers running at once (the
// main one and a fixed-time one, e2e/fixedTime.ts) never read each other's.
// Push, at /push/<device>: checks what a push service checks (a VAPID JWT signed with the
// key in `k`, aes128gcm) and decrypts the message with the device's keys as a browser does
// (RFC 8291), so the test can hand the service worker exactly what a browser would get.
import { createECDH, createPublicKey, createDecipheriv, hkdfSync, randomBytes, verify } from 'node:crypto';
import { createServer } from 'node:http';

const BOT_NAME = 'pillbox_e2e_bot';

const port = Number(process.argv[2]);
const botTokens = process.argv.slice(3);
if (!Number.isInteger(port) || port <= 0 || botTokens.length === 0) {
  console.error('usage: node e2e/doubles.mjs <port> <bot token> [<another bot token>…]');
  process.exit(2);
}
const origin = `http://127.0.0.1:${port}`;

// Telegram: each bot's updates waiting for getUpdates and its pollers waiting for them;
// what the bots were asked to do (tests read it by chat), message ids.
const bots = new Map(botTokens.map((token) => [token, { updates: [], nextUpdate: 0, wakePollers: [] }]));
let nextMessage = 100;
const botCalls = [];

// Push: each device's keys, and the messages it received (decrypted), or why one was refused.
const devices = new Map();

async function bodyOf(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function reply(response, status, body) {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(body));
}

function addUpdate(bot, update) {
  bot.nextUpdate += 1;
  bot.updates.push({ update_id: bot.nextUpdate, ...update });
  const waiting = bot.wakePollers;
  bot.wakePollers = [];
  for (const wake of waiting) wake();
}

async function telegram(bot, method, request, response) {
  const ok = (result) => reply(response, 200, { ok: true, result });
  switch (method) {
    case 'getMe':
      return ok({ id: 123, is_bot: true, first_name: 'Pillbox', username: BOT_NAME });
    case 'getUpdates': {
      const offset = Number(request.offset ?? 0);
      const deadline = Date.now() + Math.min(Number(request.timeout ?? 0), 25) * 1000;
      for (;;) {
        const pending = bot.updates.filter((u) => u.update_id >= offset);
        if (pending.length > 0 || Date.now() >= deadline) return ok(pending);
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, deadline - Date.now());
          bot.wakePollers.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    }
    case 'sendMessage':
    case 'editMessageText': {
      const messageId = method === 'sendMessage' ? ++nextMessage : Number(request.message_id);
      botCalls.push({ method, message_id: messageId, ...request });
      return ok({ message_id: messageId, chat: { id: request.chat_id, type: 'private' }, date: 0, text: request.text });
    }
    case 'answerCallbackQuery':
      botCalls.push({ method, ...request });
      return ok(true);
    default:
      return reply(response, 404, { ok: false, error_code: 404, description: 'Not Found' });
  }
}

const b64url = (buffer) => Buffer.from(buffer).toString('base64url');

/** A VAPID `Authorization: vapid t=<JWT>, k=<key>` signed for this origin, or why not. */
function vapidProblem(authorization) {
  const fields = Object.fromEntries(
    (authorization ?? '')
      .replace(/^vapid /, '')
      .split(',')
      .map((part) => part.trim().split(/=(.*)/s).slice(0, 2)),
  );
  if (!authorization?.startsWith('vapid ') || !fields.t || !fields.k) return 'no vapid t= and k=';
  const point = Buffer.from(fields.k, 'base64url');
  if (point.length !== 65 || point[0] !== 4) return 'k is not an uncompressed P-256 point';
  const key = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: b64url(point.subarray(1, 33)), y: b64url(point.subarray(33)) },
    format: 'jwk',
  });
  const [header, claims, signature] = fields.t.split('.');
  if (!header || !claims || !signature) return 'the JWT is not three parts';
  const signed = verify('sha256', Buffer.from(`${header}.${claims}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
  if (!signed) return 'the VAPID JWT signature does not verify';
  const { aud, exp, sub } = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8'));
  if (aud !== origin) return `the VAPID audience is ${aud}, not ${origin}`;
  if (!(exp * 1000 > Date.now())) return 'the VAPID JWT has expired';
  if (!/^(mailto:|https:)/.test(sub ?? '')) return `the VAPID sub is ${sub}`;
  return null;
}

/** RFC 8291 as a user agent does it, for one aes128gcm record. */
function decrypt(device, body) {
  const salt = body.subarray(0, 16);
  const idLength = body[20];
  if (idLength !== 65) throw new Error(`the key id is ${idLength} bytes`);
  const senderKey = body.subarray(21, 86);
  const sealed = body.subarray(86);
  const shared = device.ecdh.computeSecret(senderKey);
  const info = Buffer.concat([Buffer.from('WebPush: info\0'), device.ecdh.getPublicKey(), senderKey]);
  const ikm = Buffer.from(hkdfSync('sha256', shared, device.auth, info, 32));
  const key = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', key, nonce);
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  const record = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]);
  let end = record.length - 1;
  while (end >= 0 && record[end] === 0) end -= 1;
  if (record[end] !== 2) throw new Error('the last record does not end in the delimiter 2');
  return record.subarray(0, end).toString('utf8');
}

function push(name, headers, body, response) {
  const device = devices.get(name);
  if (!device) return reply(response, 404, { error: 'unknown subscription' });
  const problem =
    headers['content-encoding'] !== 'aes128gcm'
      ? 'Content-Encoding is not aes128gcm'
      : headers.ttl === undefined
        ? 'no TTL'
        : vapidProblem(headers.authorization);
  if (problem) {
    device.refused.push(problem);
    return reply(response, 400, { error: problem });
  }
  try {
    device.received.push(decrypt(device, body));
  } catch (error) {
    device.refused.push(`cannot decrypt: ${error.message}`);
    return reply(response, 400, { error: 'cannot decrypt' });
  }
  response.writeHead(201, { Location: `${origin}/message/${device.received.length}` });
  response.end();
}

/** The tests' side: make a push subscription, send Telegram updates, read what arrived. */
function control(path, method, query, request, response) {
  if (method === 'POST' && path === '/control/push/devices') {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const auth = randomBytes(16);
    const name = `d${devices.size + 1}-${randomBytes(4).toString('hex')}`;
    devices.set(name, { ecdh, auth, received: [], refused: [] });
    return reply(response, 201, {
      name,
      subscription: { endpoint: `${origin}/push/${name}`, keys: { p256dh: b64url(ecdh.getPublicKey()), auth: b64url(auth) } },
    });
  }
  const device = /^\/control\/push\/devices\/([\w-]+)$/.exec(path);
  if (method === 'GET' && device) {
    const found = devices.get(device[1]);
    if (!found) return reply(response, 404, { error: 'unknown device' });
    return reply(response, 200, { received: found.received, refused: found.refused });
  }
  if (method === 'POST' && path === '/control/telegram/updates') {
    // `?bot=<token>` chooses the bot; the first one given at start by default.
    const bot = bots.get(query.get('bot') ?? botTokens[0]);
    if (!bot) return reply(response, 404, { error: 'unknown bot' });
    addUpdate(bot, request);
    return reply(response, 201, {});
  }
  if (method === 'GET' && path === '/control/telegram/calls') {
    const chat = query.get('chat');
    return reply(response, 200, chat ? botCalls.filter((c) => String(c.chat_id) === chat) : botCalls);
  }
  return reply(response, 404, { error: 'no such control' });
}

const server = createServer((request, response) => {
  void (async () => {
    const url = new URL(request.url ?? '/', origin);
    const raw = await bodyOf(request);
    if (url.pathname === '/health') return reply(response, 200, { ok: true });
    const bot = /^\/tg\/bot([^/]+)\/(\w+)$/.exec(url.pathname);
    if (bot && request.method === 'POST') {
      const known = bots.get(bot[1]);
      if (!known) return reply(response, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
      let parsed = {};
      try {
        parsed = raw.length > 0 ? JSON.parse(raw.toString('utf8')) : {};
      } catch {
        return reply(response, 400, { ok: false, error_code: 400, description: 'Bad Request: can not parse JSON' });
      }
      return telegram(known, bot[2], parsed, response);
    }
    const endpoint = /^\/push\/([\w-]+)$/.exec(url.pathname);
    if (endpoint && request.method === 'POST') return push(endpoint[1], request.headers, raw, response);
    if (url.pathname.startsWith('/control/')) {
      const body = raw.length > 0 ? JSON.parse(raw.toString('utf8')) : {};
      return control(url.pathname, request.method, url.searchParams, body, response);
    }
    return reply(response, 404, { error: 'not found' });
  })().catch((error) => {
    console.error(error);
    if (!response.headersSent) reply(response, 500, { error: String(error) });
  });
});

server.listen(port, '127.0.0.1', () => console.log(`doubles listening on ${origin}`));
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    // The bot's getUpdates is held open for up to 25 s: end it rather than wait.
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
