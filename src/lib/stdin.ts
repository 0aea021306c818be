// Reads what a command was given on stdin ('-' for a file name), for the commands that take a document.

/** All of stdin as UTF-8 text, once it is closed. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}
