/** Copies text; false when the browser offers no clipboard (e.g. plain http on a LAN address). */
export async function copyText(text: string): Promise<boolean> {
  if (typeof navigator === 'undefined' || !('clipboard' in navigator)) return false;
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
