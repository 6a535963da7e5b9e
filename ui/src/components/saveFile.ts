import type { DownloadedFile } from '../api/data';

/**
 * Hands a downloaded file to the browser's "save" through an object URL and a temporary
 * `<a download>`: the API wants the bearer token, so a plain link cannot fetch it.
 */
export function saveFile({ blob, fileName }: DownloadedFile): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked on the next turn: some browsers start reading the URL only after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
