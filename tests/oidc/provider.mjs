// The OpenID provider the tests sign in with: `node provider.mjs PORT REDIRECT_URI [KEY_ID]`.
// It signs with an RSA key made at start under KEY_ID (default `key-1`): started again with
// another KEY_ID, it has rotated its signing key. With OIDC_ID_TOKEN_AUDIENCE set, its token
// endpoint answers ID tokens for that audience instead of the client's, signed with its own
// key: a provider that misbehaves, for the test that Pillbox checks `aud`. OIDC_ID_TOKEN_TAMPER
// spoils its ID tokens otherwise: `expired` (its `exp` ten minutes past, signed), `unsigned`
// (`alg: none` and no signature) or `issuer` (signed, but naming another issuer).
// oidc-provider's development login and consent forms accept any login; the login names the
// account, and its claims follow from the name:
//   <name>@example.test, verified (unless the name starts with "unverified"),
//   groups ["family"] (["guests"] when it starts with "outsider").
import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import Provider from 'oidc-provider';

const [port, redirect, kid = 'key-1'] = process.argv.slice(2);
if (!port || !redirect) {
  console.error('usage: node provider.mjs PORT REDIRECT_URI');
  process.exit(2);
}

const signingKey = {
  ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }),
  kid,
  alg: 'RS256',
  use: 'sig',
};

const provider = new Provider(`http://127.0.0.1:${port}`, {
  clients: [
    {
      client_id: 'pillbox',
      client_secret: 'pillbox-test-secret',
      redirect_uris: [redirect],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    },
    // Another application of the same provider: its ID tokens are not for Pillbox.
    {
      client_id: 'another-app',
      client_secret: 'another-app-secret',
      redirect_uris: [redirect],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    },
  ],
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
  scopes: ['openid', 'email', 'profile', 'groups'],
  // The ID token carries the claims of the scopes granted (Pillbox reads no userinfo).
  conformIdTokenClaims: false,
  cookies: { keys: ['pillbox-test-cookie-key'] },
  jwks: { keys: [signingKey] },
  async findAccount(_ctx, id) {
    return {
      accountId: id,
      async claims() {
        return {
          sub: id,
          email: `${id}@example.test`,
          email_verified: !id.startsWith('unverified'),
          groups: id.startsWith('outsider') ? ['guests'] : ['family'],
          name: id,
        };
      },
    };
  },
});

const audience = process.env.OIDC_ID_TOKEN_AUDIENCE;
const tamper = process.env.OIDC_ID_TOKEN_TAMPER;
if (audience || tamper) {
  const key = createPrivateKey({ key: signingKey, format: 'jwk' });
  const part = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.path === '/token' && typeof ctx.body?.id_token === 'string') {
      const [header, payload] = ctx.body.id_token.split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      if (audience) claims.aud = audience;
      if (tamper === 'expired') Object.assign(claims, { iat: now - 1200, exp: now - 600 });
      if (tamper === 'issuer') claims.iss = 'http://127.0.0.1:9/another-provider';
      let token;
      if (tamper === 'unsigned') {
        token = `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
      } else {
        const signed = `${header}.${part(claims)}`;
        token = `${signed}.${sign('sha256', Buffer.from(signed), key).toString('base64url')}`;
      }
      ctx.body = { ...ctx.body, id_token: token };
    }
  });
}

const server = provider.listen(Number(port), '127.0.0.1', () => {
  console.log(`oidc-provider listening on http://127.0.0.1:${port}`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
