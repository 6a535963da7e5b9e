import { isJsonObject, type Json, type JsonObject } from './client';
import { TWO_FACTOR_METHODS, type TwoFactorMethod } from './types';

/** The envelope's `data` object, or the body itself for servers that answer flat. */
export function payloadOf(body: Json): JsonObject | null {
  if (!isJsonObject(body)) return null;
  return isJsonObject(body.data) ? body.data : body;
}

export function isTwoFactorMethod(value: Json | undefined): value is TwoFactorMethod {
  return TWO_FACTOR_METHODS.some((method) => method === value);
}

/** The known methods of a list, in the order given; anything else is dropped. */
export function parseMethods(value: Json | undefined): TwoFactorMethod[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isTwoFactorMethod);
}

export function parseMethod(value: Json | undefined): TwoFactorMethod | null {
  return isTwoFactorMethod(value) ? value : null;
}

/** A list of strings, or null when the value is not one. */
export function parseStrings(value: Json | undefined): string[] | null {
  if (!Array.isArray(value)) return null;
  const strings = value.filter((item): item is string => typeof item === 'string');
  return strings.length === value.length ? strings : null;
}

export function nonEmptyString(value: Json | undefined): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
