// What `--db` names: a SQLite file (or :memory:) or a PostgreSQL server URL. Shared by the CLI's
// serve flags and the server, so that both tell them apart, and hide a password, the same way.

/** A `postgres://` or `postgresql://` URL (anything else is a SQLite path). */
export const isPostgresUrl = (target: string): boolean => /^postgres(?:ql)?:\/\//i.test(target);

/** The database as it may be printed or logged: a URL's password is never shown. */
export function databaseForDisplay(target: string): string {
  if (!isPostgresUrl(target)) return target;
  try {
    const url = new URL(target);
    if (url.password !== '') url.password = '***';
    // The pg driver also takes a password (and a TLS key's) as parameters of the URL.
    for (const name of ['password', 'sslpassword']) if (url.searchParams.has(name)) url.searchParams.set(name, '***');
    return url.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}
