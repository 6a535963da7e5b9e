import type { APIRequestContext, CDPSession } from '@playwright/test';
import { expect } from './fixtures';

/**
 * The tests' side of e2e/doubles.mjs: the test servers' Telegram Bot API and Web Push
 * service, started by playwright.config.ts on E2E_DOUBLES_URL.
 */
export const DOUBLES_URL = process.env.E2E_DOUBLES_URL ?? 'http://127.0.0.1:3926';

/** A request the bot made (sendMessage, editMessageText, answerCallbackQuery), as sent. */
export interface BotCall {
  method: string;
  chat_id?: number;
  message_id?: number;
  text?: string;
  reply_markup?: { inline_keyboard: { text: string; callback_data: string }[][] };
  callback_query_id?: string;
}

/** A person's Telegram chat with an instance's bot: the main server's unless `botToken` says another. */
export class TelegramChat {
  constructor(
    private readonly request: APIRequestContext,
    readonly chatId: number,
    private readonly botToken?: string,
  ) {}

  /** The person sends the bot a text (what Telegram sends when they open a t.me link with start=…). */
  async says(text: string): Promise<void> {
    const bot = this.botToken ? `?bot=${encodeURIComponent(this.botToken)}` : '';
    const sent = await this.request.post(`${DOUBLES_URL}/control/telegram/updates${bot}`, {
      data: { message: { message_id: 1, chat: { id: this.chatId, type: 'private' }, date: 0, text } },
    });
    expect(sent.status()).toBe(201);
  }

  /** What the bot sent to or edited in this chat, oldest first. */
  async calls(method?: string): Promise<BotCall[]> {
    const answer = await this.request.get(`${DOUBLES_URL}/control/telegram/calls?chat=${this.chatId}`);
    const calls = (await answer.json()) as BotCall[];
    return method ? calls.filter((call) => call.method === method) : calls;
  }
}

/**
 * This browser's push subscription, at the local push service: the service checks the
 * server's VAPID signature and decrypts each message with the subscription's keys; `forward`
 * hands what arrived to the page's service worker, as the browser does with a push it gets.
 */
export class PushDevice {
  private forwarded = 0;

  private constructor(
    private readonly request: APIRequestContext,
    private readonly name: string,
    readonly subscription: { endpoint: string; keys: { p256dh: string; auth: string } },
  ) {}

  static async create(request: APIRequestContext): Promise<PushDevice> {
    const made = await request.post(`${DOUBLES_URL}/control/push/devices`);
    expect(made.status()).toBe(201);
    const { name, subscription } = (await made.json()) as { name: string; subscription: PushDevice['subscription'] };
    return new PushDevice(request, name, subscription);
  }

  /** The messages the push service took for this device (decrypted), and any it refused. */
  async received(): Promise<{ received: string[]; refused: string[] }> {
    const answer = await this.request.get(`${DOUBLES_URL}/control/push/devices/${this.name}`);
    return (await answer.json()) as { received: string[]; refused: string[] };
  }

  /** Delivers the messages not yet delivered to the service worker; returns them. */
  async forward(cdp: CDPSession, origin: string, registrationId: string): Promise<string[]> {
    const { received, refused } = await this.received();
    expect(refused, 'the push service refused a message').toEqual([]);
    const fresh = received.slice(this.forwarded);
    for (const data of fresh) {
      await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId, data });
      this.forwarded += 1;
    }
    return fresh;
  }
}
