// stripefs dashboard: the dashboard's address with a read-only token in it.
// The MDS's admin HTTP API needs an admin identity; a browser holds no
// keyring, so the CLI (signing as an admin) asks the MDS for a bearer ticket
// (POST /api/auth/token) and prints the page's URL with the ticket after '#',
// which the page trades for a cookie and renews while it is open. An MDS with
// TLS serves it over HTTPS (common/admin-https.ts).
import type { Command } from 'commander';
import { adminRequest, adminUrlOf, type ConnectFlags } from '../connect.js';
import { printJson } from '../output.js';

interface DashboardFlags extends ConnectFlags {
  json?: boolean;
}

async function dashboardUrl(flags: DashboardFlags): Promise<void> {
  const base = adminUrlOf(flags);
  const { token, expiresMs, identity } = await adminRequest<{
    token: string;
    expiresMs: number;
    identity: string;
  }>(`${base}/api/auth/token`, 'POST');
  const url = `${base}/dashboard/#token=${encodeURIComponent(token)}`;
  if (flags.json) {
    printJson({ url, identity, expiresMs });
    return;
  }
  process.stdout.write(`${url}\n`);
  process.stderr.write(
    `stripefs dashboard: open it in a browser within ${Math.round((expiresMs - Date.now()) / 60_000)} minutes; it views as ${identity} (read-only) and renews itself while open\n`,
  );
  if (url.startsWith('https:'))
    process.stderr.write(
      "stripefs dashboard: the MDS serves it over HTTPS with the cluster's certificate: the browser must trust the cluster's CA (tls.ca, data/tls/ca.pem)\n",
    );
}

export function registerDashboardCommand(program: Command): void {
  program
    .command('dashboard')
    .description("the dashboard's URL, with a read-only token of this CLI's admin identity")
    .option('--mds <host:port>', 'MDS address (default: $STRIPEFS_MDS or 127.0.0.1:7070)')
    .option('--admin <url>', 'MDS admin API (default: the MDS port + 1)')
    .option('--json', 'print JSON')
    .action(dashboardUrl);
}
