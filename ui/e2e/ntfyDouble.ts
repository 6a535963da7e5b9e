import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from './fixtures';

/** What the ntfy double was sent: ntfy's JSON publish (https://docs.ntfy.sh/publish/#publish-as-json). */
export interface Published {
  topic: string;
  title: string;
  message: string;
  priority?: number;
  click?: string;
  actions: NtfyAction[];
  sequence_id: string;
  authorization: string | undefined;
}

/** An action button (https://docs.ntfy.sh/publish/#action-buttons). */
export interface NtfyAction {
  action: 'view' | 'http' | 'broadcast';
  label: string;
  url?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  clear?: boolean;
}

export const GOOD_TOKEN = 'tk_e2egoodtokenforthentfydouble';

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A small ntfy server on 127.0.0.1: it takes JSON publishes to its root, as ntfy does, and
 * answers 401 as ntfy does when the access token is not the one it knows.
 */
export class NtfyDouble {
  readonly published: Published[] = [];
  readonly refused: string[] = [];
  /** Where it listens, once started. */
  url = '';
  private server: Server | null = null;

  /** An ntfy double that runs while the calling spec's tests do: started before, stopped after. */
  static forSpec(): NtfyDouble {
    const double = new NtfyDouble();
    test.beforeAll(() => double.start());
    test.afterAll(() => double.stop());
    return double;
  }

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      void (async () => {
        const text = await bodyOf(request);
        const reply = (status: number, body: unknown) => {
          response.writeHead(status, { 'Content-Type': 'application/json' });
          response.end(JSON.stringify(body));
        };
        if (request.method !== 'POST' || request.url !== '/') {
          reply(404, { code: 40401, http: 404, error: 'page not found' });
          return;
        }
        const authorization = request.headers.authorization;
        if (authorization !== `Bearer ${GOOD_TOKEN}`) {
          this.refused.push(authorization ?? '');
          reply(401, { code: 40101, http: 401, error: 'unauthorized' });
          return;
        }
        let message: Omit<Published, 'authorization'>;
        try {
          message = JSON.parse(text) as Omit<Published, 'authorization'>;
        } catch {
          reply(400, { code: 40001, http: 400, error: 'invalid request: body is not JSON' });
          return;
        }
        if (typeof message.topic !== 'string' || message.topic === '') {
          reply(400, { code: 40009, http: 400, error: 'invalid request: topic missing' });
          return;
        }
        this.published.push({ ...message, authorization });
        reply(200, { id: `m${this.published.length}`, time: Math.floor(Date.now() / 1000), event: 'message', topic: message.topic });
      })();
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.url;
  }

  /**
   * A press on an `http` action button, performed the way the ntfy app does: the action's
   * method (POST unless it names one), its headers and body, to its URL. Returns the answer.
   */
  async press(message: Published, label: string): Promise<{ status: number; body: unknown }> {
    const action = message.actions.find((a) => a.action === 'http' && a.label === label);
    if (!action?.url) throw new Error(`no http action "${label}" in ${JSON.stringify(message.actions)}`);
    const answer = await fetch(action.url, {
      method: action.method ?? 'POST',
      headers: action.headers ?? {},
      body: action.body ?? '',
    });
    const text = await answer.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      // Not JSON: keep the text.
    }
    return { status: answer.status, body };
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
