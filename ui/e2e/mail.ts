import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from '@playwright/test';

/** The Pillbox that sends e-mail (playwright.config.ts starts it). */
export const MAIL_SERVER_URL = process.env.E2E_MAIL_URL ?? 'http://127.0.0.1:3912';

function maildirNew(): string {
  const maildir = process.env.E2E_MAILDIR;
  if (!maildir) throw new Error('E2E_MAILDIR is not set: run the tests through playwright.config.ts');
  return join(maildir, 'new');
}

export interface Mail {
  file: string;
  to: string;
  subject: string;
  /** The decoded text/plain part. */
  text: string;
  receivedAt: number;
}

/** Undoes quoted-printable: soft line breaks (`=\n`) and `=XX` bytes. */
export function decodeQuotedPrintable(body: string): string {
  const joined = body.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i += 1) {
    const hex = joined.slice(i + 1, i + 3);
    if (joined[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(joined.charAt(i), 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function header(head: string, name: string): string {
  // Folded header lines continue with whitespace.
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const line = unfolded.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line ? line.slice(name.length + 1).trim() : '';
}

/** The text/plain part of a MIME message, its transfer encoding undone. */
export function plainText(raw: string): string {
  const message = raw.replace(/\r\n/g, '\n');
  const start = message.search(/^Content-Type: text\/plain/im);
  const part = start >= 0 ? message.slice(start) : message;
  const split = part.indexOf('\n\n');
  const head = split >= 0 ? part.slice(0, split) : '';
  const body = (split >= 0 ? part.slice(split + 2) : part).split('\n--')[0] ?? '';
  const encoding = header(head, 'Content-Transfer-Encoding').toLowerCase();
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  if (encoding === 'base64') return Buffer.from(body.replace(/\s/g, ''), 'base64').toString('utf8');
  return body;
}

function parse(file: string): Mail {
  const raw = readFileSync(file, 'utf8');
  const head = raw.replace(/\r\n/g, '\n').split('\n\n')[0] ?? '';
  return {
    file,
    to: header(head, 'To'),
    subject: header(head, 'Subject'),
    text: plainText(raw),
    receivedAt: statSync(file).mtimeMs,
  };
}

/** Every message the sink has received for `address`, oldest first. */
export function mailsTo(address: string): Mail[] {
  let files: string[];
  try {
    files = readdirSync(maildirNew()).map((name) => join(maildirNew(), name));
  } catch {
    return [];
  }
  return files
    .map(parse)
    .filter((mail) => mail.to.toLowerCase().includes(address.toLowerCase()))
    .sort((a, b) => a.receivedAt - b.receivedAt);
}

/** The newest message for `address`, or undefined. */
export function newestMailTo(address: string): Mail | undefined {
  return mailsTo(address).at(-1);
}

/** Waits for the `count`-th message to `address` (counting from 1) and returns it. */
export async function waitForMail(address: string, count: number, subject?: RegExp): Promise<Mail> {
  await expect
    .poll(() => mailsTo(address).length, { message: `message #${count} to ${address}`, timeout: 15_000 })
    .toBeGreaterThanOrEqual(count);
  const mail = mailsTo(address)[count - 1];
  if (!mail) throw new Error(`no message #${count} to ${address}`);
  if (subject) expect(mail.subject).toMatch(subject);
  return mail;
}

export function verificationLink(mail: Mail): string {
  const link = /https?:\/\/\S+\/verify-email\/[A-Za-z0-9_-]+/.exec(mail.text)?.[0];
  if (!link) throw new Error(`no /verify-email/ link in:\n${mail.text}`);
  return link;
}

export function signInCode(mail: Mail): string {
  const code = /\b(\d{6})\b/.exec(mail.text)?.[1];
  if (!code) throw new Error(`no 6-digit code in:\n${mail.text}`);
  return code;
}
