import { z } from 'zod';

/** Largest request body given inline (decoded bytes). Larger ones come from a workspace file (`body_file`). */
export const HTTP_MAX_REQUEST_BYTES = 1024 * 1024;
/** Largest request body read from a workspace file; its bytes are kept as an artifact. */
export const HTTP_MAX_FILE_BODY_BYTES = 32 * 1024 * 1024;
/** Most of a response body kept (inline up to `max_response_bytes`, the rest as an artifact); reading stops here. */
export const HTTP_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
export const HTTP_MAX_REDIRECTS = 5;

export const httpRequestArgs = z
  .strictObject({
    method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']),
    url: z.string().min(1).max(8192).describe('http(s) URL; its host must be in the grant'),
    headers: z
      .record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'an HTTP header name'), z.string().max(8192).regex(/^[^\r\n\0]*$/, 'no CR, LF or NUL'))
      .refine((h) => Object.keys(h).length <= 32, 'at most 32 headers')
      .default({})
      .describe('Host, hop-by-hop, Authorization, Cookie, Proxy-* and Idempotency-Key are set by the connector and refused here'),
    body: z
      .string()
      .max(Math.ceil((HTTP_MAX_REQUEST_BYTES * 4) / 3) + 4)
      .optional(),
    body_encoding: z.enum(['utf-8', 'base64']).default('utf-8'),
    body_file: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe('A workspace file sent as the body (up to 32 MiB), instead of `body`; the bytes sent are kept as an artifact the receipt names'),
    max_response_bytes: z.number().int().min(0).max(1024 * 1024).default(64 * 1024).describe('Body bytes returned inline; the rest goes to an artifact'),
    follow_redirects: z.boolean().default(true).describe('GET and HEAD only; each redirect is authorized again'),
  })
  .refine((a) => a.body === undefined || (a.method !== 'GET' && a.method !== 'HEAD'), { message: 'GET and HEAD take no body', path: ['body'] })
  .refine((a) => a.body_file === undefined || (a.method !== 'GET' && a.method !== 'HEAD'), { message: 'GET and HEAD take no body', path: ['body_file'] })
  .refine((a) => a.body === undefined || a.body_file === undefined, { message: 'body or body_file, not both', path: ['body_file'] });
export type HttpRequestArgs = z.infer<typeof httpRequestArgs>;

const evidenceSchema = z.strictObject({
  url: z.string(),
  address: z.string(),
  port: z.number().int(),
  servername: z.string().nullable(),
  addresses: z.array(z.strictObject({ address: z.string(), class: z.string() })),
});

export const httpRequestResult = z.strictObject({
  method: z.string(),
  url: z.string().describe('The URL as normalized, the last one after redirects'),
  status: z.number().int(),
  status_text: z.string(),
  headers: z.record(z.string(), z.string()),
  request_id: z.string().nullable().describe("The provider's request id header (x-request-id and similar)"),
  idempotency_key: z.string().nullable().describe('The Idempotency-Key sent (writes): derived from the task and the logical effect'),
  operation_id: z.string().nullable().describe('For a 202: the operation to follow (Location or the declared JSON field)'),
  body: z.string(),
  body_encoding: z.enum(['utf-8', 'base64']),
  body_bytes: z.number().int(),
  body_sha256: z.string(),
  body_complete: z.boolean().describe('false: the connection dropped mid-body or it passed the connector limit'),
  body_artifact: z.string().nullable().describe('Digest of the artifact holding the whole body when it is longer than max_response_bytes'),
  redirects: z.array(z.strictObject({ status: z.number().int(), from: z.string(), to: z.string(), host_changed: z.boolean(), scheme_changed: z.boolean() })),
  destination: evidenceSchema,
});
export type HttpRequestResult = z.infer<typeof httpRequestResult>;
