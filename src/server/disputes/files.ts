// Dispute action bodies: plain JSON, or multipart/form-data with a JSON `input` part and file parts.
// Files are checked (type by magic bytes, size, count) while they stream in; nothing is kept on failure.

import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { ServiceError, serviceError } from '../http/errors.js';
import { nestingProblem, valueNestingProblem } from '../http/json-depth.js';

export const FILE_LIMITS = {
  /** Bytes per file (10 MiB). */
  maxFileBytes: 10 * 1024 * 1024,
  /** Bytes of all files in one request (50 MiB). */
  maxRequestBytes: 50 * 1024 * 1024,
  maxFiles: 10,
  /** Beyond this much file data a refused request is cut off rather than read to its end. */
  drainCapBytes: 128 * 1024 * 1024,
} as const;

/** Busboy limits for the plugin: generous hard caps; the real limits are checked in readActionBody. */
export const MULTIPART_PLUGIN_LIMITS = {
  fileSize: FILE_LIMITS.maxFileBytes,
  files: 100,
  fields: 20,
  parts: 120,
  fieldSize: 1024 * 1024,
  headerPairs: 100,
} as const;

interface FileType {
  contentType: string;
  aliases: readonly string[];
  extensions: readonly string[];
  signatures: readonly Buffer[];
}

const FILE_TYPES: readonly FileType[] = [
  { contentType: 'application/pdf', aliases: [], extensions: ['pdf'], signatures: [Buffer.from('%PDF-', 'latin1')] },
  { contentType: 'image/jpeg', aliases: ['image/jpg', 'image/pjpeg'], extensions: ['jpg', 'jpeg'], signatures: [Buffer.from([0xff, 0xd8, 0xff])] },
  { contentType: 'image/gif', aliases: [], extensions: ['gif'], signatures: [Buffer.from('GIF87a', 'latin1'), Buffer.from('GIF89a', 'latin1')] },
  {
    contentType: 'image/png',
    aliases: [],
    extensions: ['png'],
    signatures: [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
  },
];

export interface UploadedFile {
  /** The form field the file came in (any name is accepted). */
  field: string;
  name: string;
  contentType: string;
  bytes: Buffer;
  sha256: string;
}

export interface ActionBody {
  input: unknown;
  files: UploadedFile[];
  /** What the request-id hash covers for a multipart request (the JSON and each file's digest). */
  fingerprint: unknown;
}

const invalidFile = (description: string, field?: string, value?: string): ServiceError =>
  serviceError('VALIDATION_ERROR', 'INVALID_EVIDENCE_FILE', description, {
    ...(field !== undefined ? { field } : {}),
    ...(value !== undefined ? { value } : {}),
    location: 'body',
  });

/** The type a file's first bytes show, if it is one of the accepted ones. */
export function detectFileType(bytes: Buffer): FileType | undefined {
  return FILE_TYPES.find((type) => type.signatures.some((signature) => bytes.subarray(0, signature.length).equals(signature)));
}

function declaredType(mimetype: string): FileType | undefined {
  const type = mimetype.split(';')[0]?.trim().toLowerCase() ?? '';
  return FILE_TYPES.find((candidate) => candidate.contentType === type || candidate.aliases.includes(type));
}

/** A file name safe to show and serve back: no directories, no control or quote characters. */
function cleanName(filename: string): string {
  // eslint-disable-next-line no-control-regex
  return basename(filename.replace(/\\/g, '/')).replace(/[\u0000-\u001f\u007f"]/g, '').slice(0, 255);
}

/** Refuses a file whose declared type, extension and bytes do not all agree on an accepted type. */
export function checkFile(field: string, filename: string, mimetype: string, bytes: Buffer): UploadedFile {
  const name = cleanName(filename);
  if (!name) throw invalidFile('Each file needs a file name with an extension (.pdf, .jpg, .jpeg, .gif, .png).', field);
  const declared = declaredType(mimetype);
  if (!declared) {
    throw invalidFile(`${name}: files must be PDF, JPEG, GIF or PNG; the declared type is ${mimetype || 'missing'}.`, field, name);
  }
  const extension = name.includes('.') ? (name.split('.').pop() ?? '').toLowerCase() : '';
  if (!declared.extensions.includes(extension)) {
    throw invalidFile(`${name}: a ${declared.contentType} file must be named .${declared.extensions.join(' or .')}.`, field, name);
  }
  const actual = detectFileType(bytes);
  if (actual !== declared) {
    throw invalidFile(
      `${name}: the content is ${actual ? actual.contentType : 'not a PDF, JPEG, GIF or PNG'}, not ${declared.contentType} as declared.`,
      field,
      name,
    );
  }
  return { field, name, contentType: declared.contentType, bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** A field the plugin already parsed as JSON, refused when it is nested too deep. */
function shallowEnough(value: unknown): unknown {
  const tooDeep = valueNestingProblem(value);
  if (tooDeep) throw tooDeep;
  return value;
}

function parseInputText(text: string): unknown {
  const tooDeep = nestingProblem(text);
  if (tooDeep) throw tooDeep;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw serviceError('INVALID_REQUEST', 'MALFORMED_REQUEST_JSON', 'The input part is not valid JSON.', { field: 'input', location: 'body' });
  }
}

/** Maps the plugin's own failures (limits, malformed parts) to the service's errors. */
function fromPluginError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  const code = (error as { code?: unknown }).code;
  if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_REQ_FILE_TOO_LARGE') {
    return invalidFile(`At most ${FILE_LIMITS.maxFiles} files of at most 10 MB each, 50 MB in all, per request.`);
  }
  if (code === 'FST_INVALID_JSON_FIELD_ERROR') {
    return serviceError('INVALID_REQUEST', 'MALFORMED_REQUEST_JSON', 'The input part is not valid JSON.', { field: 'input', location: 'body' });
  }
  return serviceError('INVALID_REQUEST', 'MALFORMED_REQUEST', 'The multipart/form-data body could not be read.', { location: 'body' });
}

async function discard(part: MultipartFile): Promise<number> {
  let bytes = 0;
  for await (const chunk of part.file) bytes += (chunk as Buffer).length;
  return bytes;
}

/**
 * Reads an action body. JSON bodies pass through; multipart bodies give their `input` part (a JSON
 * text field, or a JSON file part) and their files. After the first refused file the rest of the
 * request is read and dropped, so the caller always gets the error rather than a reset connection.
 */
export async function readActionBody(request: FastifyRequest, options: { filesAllowed: boolean }): Promise<ActionBody> {
  if (!request.isMultipart()) {
    const input = request.body === undefined ? {} : request.body;
    return { input, files: [], fingerprint: input };
  }
  let input: unknown = {};
  const files: UploadedFile[] = [];
  let failure: ServiceError | undefined;
  let total = 0;
  let seen = 0;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        if (part.fieldname === 'input') input = typeof part.value === 'string' ? parseInputText(part.value) : shallowEnough(part.value);
        continue;
      }
      if (failure) {
        total += await discard(part);
        if (total > FILE_LIMITS.drainCapBytes) break;
        continue;
      }
      if (part.fieldname === 'input' && /json/i.test(part.mimetype)) {
        input = parseInputText((await part.toBuffer()).toString('utf8'));
        continue;
      }
      seen += 1;
      const bytes = await part.toBuffer();
      total += bytes.length;
      if (!options.filesAllowed) failure = invalidFile('This action takes no files.', part.fieldname, part.filename);
      else if (seen > FILE_LIMITS.maxFiles) failure = invalidFile(`At most ${FILE_LIMITS.maxFiles} files per request.`, part.fieldname, part.filename);
      else if (part.file.truncated) failure = invalidFile(`${part.filename}: files must be at most 10 MB.`, part.fieldname, part.filename);
      else if (total > FILE_LIMITS.maxRequestBytes) failure = invalidFile('The files of one request must total at most 50 MB.', part.fieldname, part.filename);
      else {
        try {
          files.push(checkFile(part.fieldname, part.filename, part.mimetype, bytes));
        } catch (error) {
          failure = fromPluginError(error);
        }
      }
      if (failure) files.length = 0;
    }
  } catch (error) {
    throw failure ?? fromPluginError(error);
  }
  if (failure) throw failure;
  const fingerprint = { input, files: files.map((file) => ({ field: file.field, name: file.name, sha256: file.sha256 })) };
  return { input, files, fingerprint };
}
