// Which hosts may write the links of an answer: the listening address, localhost on its port, and
// the configured public URL. Any other Host header gets the public URL's links instead.

/** The public URL as given (`--public-url`): http(s), no query, fragment or credentials; no trailing slash. */
export function parsePublicUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`--public-url must be an absolute http or https URL (got ${JSON.stringify(text)})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('--public-url must use http or https');
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new Error('--public-url must not carry a query, a fragment or credentials');
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * `linkBase(host)` for a server listening at `listening` (http://address:port) with `publicUrl`.
 * Host values compare case-insensitively; an allowed Host keeps the caller's spelling.
 */
export function linkBaseFor(listening: string, publicUrl: string): (host: string | undefined) => string {
  const listen = new URL(listening);
  const bases = new Map<string, string>([
    [listen.host.toLowerCase(), listening],
    [`localhost:${listen.port}`, `http://localhost:${listen.port}`],
  ]);
  // Listening on every interface: the loopback addresses are listening addresses too.
  if (listen.hostname === '0.0.0.0') bases.set(`127.0.0.1:${listen.port}`, `http://127.0.0.1:${listen.port}`);
  if (listen.hostname === '[::]') bases.set(`[::1]:${listen.port}`, `http://[::1]:${listen.port}`);
  bases.set(new URL(publicUrl).host.toLowerCase(), publicUrl);
  return (host) => (host === undefined ? publicUrl : (bases.get(host.toLowerCase()) ?? publicUrl));
}
