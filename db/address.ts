/** host:port/database of a connection string, never its user or password. */
export function databaseAddress(connectionString: string | undefined): string {
  if (connectionString === undefined || !URL.canParse(connectionString)) return 'DATABASE_URL';
  const url = new URL(connectionString);
  const host = url.searchParams.get('host') ?? (url.hostname || 'localhost');
  const port = url.searchParams.get('port') ?? (url.port || '5432');
  const database = url.pathname.length > 1 ? decodeURIComponent(url.pathname.slice(1)) : null;
  return `${host}:${port}${database === null ? '' : `/${database}`}`;
}
