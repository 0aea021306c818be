// What pg's clients write to PostgreSQL while a test's work runs: per socket write call (one system
// call), the frontend messages it carried. For tests of what goes out together, and what is prepared.

import net from 'node:net';
import { vi } from 'vitest';

export interface FrontendMessage {
  /** 'Q' query, 'P' parse, 'B' bind, 'D' describe, 'E' execute, 'S' sync, 'C' close, 'H' flush, 'X' terminate; '?' a write not read as messages. */
  type: string;
  /** 'P' and 'B': the prepared statement's name ('' for the unnamed one). */
  statement?: string;
  /** 'Q' and 'P': the SQL text. */
  text?: string;
}

export interface SocketWrite {
  socket: net.Socket;
  messages: FrontendMessage[];
}

const MESSAGE_TYPES = new Set('QPBDECHSXFdcfp');

/** The first `count` NUL-terminated strings of `body`. */
function cStrings(body: Buffer, count: number): string[] {
  const strings: string[] = [];
  let start = 0;
  for (let index = 0; index < count; index += 1) {
    const end = body.indexOf(0, start);
    if (end < 0) break;
    strings.push(body.toString('utf8', start, end));
    start = end + 1;
  }
  return strings;
}

function message(type: string, body: Buffer): FrontendMessage {
  if (type === 'Q') return { type, text: cStrings(body, 1)[0] };
  if (type === 'P') {
    const [statement, text] = cStrings(body, 2);
    return { type, statement, text };
  }
  if (type === 'B') return { type, statement: cStrings(body, 2)[1] };
  return { type };
}

/** A connection's first packet, which has no type byte: the startup message, or a request for SSL or GSS encryption. */
function isStartupPacket(buffer: Buffer): boolean {
  if (buffer.length < 8 || buffer.readInt32BE(0) !== buffer.length) return false;
  const code = buffer.readInt32BE(4);
  return code === 196_608 || code === 80_877_103 || code === 80_877_104;
}

/** The messages `buffer` holds, or undefined when it is not a run of whole frontend messages (the startup message, anything else). */
export function frontendMessages(buffer: Buffer): FrontendMessage[] | undefined {
  const messages: FrontendMessage[] = [];
  for (let offset = 0; offset < buffer.length; ) {
    if (buffer.length - offset < 5) return undefined;
    const type = String.fromCharCode(buffer[offset]!);
    const length = buffer.readInt32BE(offset + 1);
    const end = offset + 1 + length;
    if (!MESSAGE_TYPES.has(type) || length < 4 || end > buffer.length) return undefined;
    messages.push(message(type, buffer.subarray(offset + 5, end)));
    offset = end;
  }
  return messages.length > 0 ? messages : undefined;
}

type WriteCallback = (error?: Error | null) => void;
interface SocketWrites {
  _write(chunk: unknown, encoding: BufferEncoding, callback: WriteCallback): void;
  _writev(chunks: Array<{ chunk: unknown; encoding: BufferEncoding }>, callback: WriteCallback): void;
}

const asBuffer = (chunk: unknown, encoding: BufferEncoding): Buffer => (Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), encoding));

/**
 * Runs `work`, recording every write of frontend messages to a socket connected to `port`. `work`
 * is handed the writes recorded so far (to see what has gone out at some point of it).
 */
export async function recordWrites<T>(port: number, work: (writes: readonly SocketWrite[]) => Promise<T>): Promise<{ result: T; writes: SocketWrite[] }> {
  const writes: SocketWrite[] = [];
  const record = (socket: net.Socket, buffers: Buffer[]) => {
    if (socket.remotePort !== port) return;
    const buffer = Buffer.concat(buffers);
    if (isStartupPacket(buffer)) return;
    // Anything else unread is kept as such, so that "this was never sent" cannot pass unseen.
    writes.push({ socket, messages: frontendMessages(buffer) ?? [{ type: '?' }] });
  };
  const prototype = net.Socket.prototype as unknown as SocketWrites;
  const { _write: realWrite, _writev: realWritev } = prototype;
  const write = vi.spyOn(prototype, '_write').mockImplementation(function (this: net.Socket, chunk, encoding, callback) {
    record(this, [asBuffer(chunk, encoding)]);
    realWrite.call(this, chunk, encoding, callback);
  });
  const writev = vi.spyOn(prototype, '_writev').mockImplementation(function (this: net.Socket, chunks, callback) {
    record(
      this,
      chunks.map((entry) => asBuffer(entry.chunk, entry.encoding)),
    );
    realWritev.call(this, chunks, callback);
  });
  try {
    const result = await work(writes);
    return { result, writes };
  } finally {
    write.mockRestore();
    writev.mockRestore();
  }
}

/**
 * Per write call, its messages: a Bind as `B <text of the statement>` (from the Parse messages seen,
 * in order: the unnamed statement is the last one parsed), Parse as `P <name>`, a query as `Q <text>`.
 */
export function described(writes: readonly SocketWrite[]): string[][] {
  const named = new Map<string, string>();
  for (const write of writes) for (const message of write.messages) if (message.type === 'P' && message.statement !== '') named.set(message.statement!, message.text!);
  let unnamed: string | undefined;
  return writes.map((write) =>
    write.messages.map((message) => {
      if (message.type === 'Q') return `Q ${message.text}`;
      if (message.type === 'P') {
        if (message.statement === '') unnamed = message.text;
        return `P ${message.statement}`;
      }
      if (message.type === 'B') return `B ${(message.statement === '' ? unnamed : named.get(message.statement!)) ?? message.statement}`;
      return message.type;
    }),
  );
}

/** What the writes ran, in order: each Bind's statement text, each simple query's text. */
export const textsRun = (writes: readonly SocketWrite[]): string[] =>
  described(writes).flatMap((write) => write.filter((entry) => entry.startsWith('B ') || entry.startsWith('Q ')).map((entry) => entry.slice(2)));
