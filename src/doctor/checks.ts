/**
 * The network checks of one target of `cai doctor`, in order: the URL's scheme (§5.8), DNS, TCP, TLS 1.2 or above
 * and no older (§5.8), the certificate, and the server's clock against the §5.5 window. The probes are network.ts's;
 * this module turns their facts into verdicts.
 */
import { hintOf } from '../errors.js';
import { bareHostname, isLoopbackUrl } from '../http/loopback.js';
import { SIGNATURE_WINDOW_SECONDS } from '../spec/constants.js';
import {
  connectTcp,
  describeSocketError,
  fetchDate,
  handshake,
  resolveHost,
  type ProbeOptions,
  type TlsFacts,
} from './network.js';
import type { CheckResult, DoctorTarget } from './types.js';

/** Certificates expiring sooner than this get a warning. */
const CERTIFICATE_WARNING_DAYS = 30;
/** A clock offset above this (but within the §5.5 window) gets a warning: it eats into the window. */
const CLOCK_WARNING_SECONDS = 60;

/** Every network check of one target, in order; a failed step skips the ones that depend on it. */
export async function checkTarget(
  target: DoctorTarget,
  options: ProbeOptions & { now: () => number },
): Promise<CheckResult[]> {
  const url = new URL(target.url);
  const base = { target: target.url, interface: target.interface };
  const results: CheckResult[] = [];
  const push = (result: Omit<CheckResult, 'target' | 'interface'>) => results.push({ ...base, ...result });
  const skip = (ids: string[], why: string) =>
    ids.forEach((id) => push({ id, verdict: 'skip', message: `not run: ${why}` }));
  const https = url.protocol === 'https:';
  const hostname = bareHostname(url);
  const port = Number(url.port || (https ? 443 : 80));

  if (!https) {
    const local = isLoopbackUrl(target.url);
    push({
      id: 'url',
      verdict: local ? 'warn' : 'fail',
      message: local
        ? 'plain http on a local address: fine for a mock, not for a deployment'
        : 'plain http: the interface requires TLS 1.2 or above (§5.8)',
      hint: 'use an https:// URL',
    });
  }
  let addresses: string[];
  try {
    addresses = await resolveHost(hostname, options.timeoutMs);
    push({
      id: 'dns',
      verdict: 'pass',
      message:
        addresses[0] === hostname ? `${hostname} is an IP address` : `${hostname} resolves to ${addresses.join(', ')}`,
    });
  } catch (error) {
    push(failure('dns', error, `${hostname} does not resolve`));
    skip(['tcp', ...(https ? ['tls', 'tls-legacy', 'certificate'] : []), 'clock'], 'the name does not resolve');
    return results;
  }
  const address = addresses[0] as string;
  try {
    await connectTcp(address, port, options.timeoutMs);
    push({ id: 'tcp', verdict: 'pass', message: `${address} port ${port} accepts connections` });
  } catch (error) {
    push(failure('tcp', error, `cannot connect to ${address} port ${port}`));
    skip([...(https ? ['tls', 'tls-legacy', 'certificate'] : []), 'clock'], 'no TCP connection');
    return results;
  }
  if (https) {
    const tlsOk = await checkTls(address, hostname, port, options, push);
    if (!tlsOk) {
      skip(['clock'], 'no TLS connection');
      return results;
    }
  }
  await checkClock(url, address, options, push);
  return results;
}

type Push = (result: Omit<CheckResult, 'target' | 'interface'>) => void;

/** The next step when a check's probe fails, by the check and the socket error's code. */
const FAILURE_HINTS: Record<'dns' | 'tcp' | 'tls' | 'clock', (code: string) => string> = {
  dns: () => "check the host name for typos, and this machine's DNS and network",
  tcp: (code) =>
    code === 'ECONNREFUSED'
      ? 'nothing listens there: check the port and that the service runs'
      : 'check firewalls, and that this machine may reach the host (egress rules, VPN)',
  tls: () => 'the server must offer TLS 1.2 or 1.3 (§5.8); is this port speaking TLS at all?',
  clock: () => 'the server accepts connections but does not answer HTTP',
};

/** A check whose probe failed: what was tried, the socket error's code and words, and the next step. */
function failure(id: keyof typeof FAILURE_HINTS, error: unknown, what: string): Parameters<Push>[0] {
  const { code, message } = describeSocketError(error);
  return { id, verdict: 'fail', message: `${what} (${code}): ${message}`, hint: FAILURE_HINTS[id](code) };
}

async function checkTls(
  address: string,
  hostname: string,
  port: number,
  options: ProbeOptions & { now: () => number },
  push: Push,
): Promise<boolean> {
  let facts: TlsFacts;
  try {
    facts = await handshake(address, hostname, port, { min: 'TLSv1.2', max: 'TLSv1.3' }, options);
    push({
      id: 'tls',
      verdict: 'pass',
      message: `negotiates ${facts.protocol} (${facts.cipher})`,
      details: { protocol: facts.protocol, cipher: facts.cipher },
    });
  } catch (error) {
    push(failure('tls', error, 'no TLS 1.2+ handshake'));
    push({ id: 'certificate', verdict: 'skip', message: 'not run: no TLS handshake' });
    push({ id: 'tls-legacy', verdict: 'skip', message: 'not run: no TLS handshake' });
    return false;
  }
  push(certificateVerdict(facts, options.now()));
  try {
    const legacy = await handshake(address, hostname, port, { min: 'TLSv1', max: 'TLSv1.1' }, options);
    push({
      id: 'tls-legacy',
      verdict: 'fail',
      message: `accepts ${legacy.protocol}, below the TLS 1.2 minimum (§5.8)`,
      hint: "set the server's minimum protocol to TLSv1.2 (e.g. ssl_protocols TLSv1.2 TLSv1.3;)",
    });
  } catch (error) {
    const { code } = describeSocketError(error);
    if (code === 'ERR_SSL_NO_PROTOCOLS_AVAILABLE') {
      push({
        id: 'tls-legacy',
        verdict: 'skip',
        message: "this machine's OpenSSL cannot offer TLS 1.0/1.1, so their refusal cannot be tested",
        hint: 'run cai doctor from a machine whose OpenSSL still supports TLS 1.1',
      });
    } else {
      push({ id: 'tls-legacy', verdict: 'pass', message: `refuses TLS 1.0 and 1.1 (${code})` });
    }
  }
  return true;
}

function certificateVerdict(facts: TlsFacts, now: number): Omit<CheckResult, 'target' | 'interface'> {
  const certificate = facts.certificate;
  if (!certificate || !certificate.valid_to)
    return {
      id: 'certificate',
      verdict: 'fail',
      message: 'the server sent no certificate',
      hint: 'configure a certificate for this host',
    };
  const validTo = Date.parse(certificate.valid_to);
  const validFrom = Date.parse(certificate.valid_from);
  const subject = certificate.subject?.CN ?? certificate.subjectaltname ?? 'the certificate';
  const details = {
    subject: certificate.subject?.CN,
    issuer: certificate.issuer?.CN,
    valid_from: new Date(validFrom).toISOString(),
    valid_to: new Date(validTo).toISOString(),
    subjectaltname: certificate.subjectaltname,
  };
  const daysLeft = Math.floor((validTo - now) / 86_400_000);
  const verdict = (kind: CheckResult['verdict'], message: string, hint?: string) => ({
    id: 'certificate',
    verdict: kind,
    message,
    ...(hint === undefined ? {} : { hint }),
    details,
  });
  if (validTo <= now) return verdict('fail', `${subject} expired on ${details.valid_to}`, 'renew the certificate');
  if (validFrom > now)
    return verdict(
      'fail',
      `${subject} is not valid before ${details.valid_from}`,
      "check this machine's clock and the certificate's dates",
    );
  if (!facts.authorized)
    return verdict(
      'fail',
      `${subject} is not trusted: ${facts.authorizationError ?? 'unknown reason'}`,
      trustHint(facts.authorizationError),
    );
  if (daysLeft < CERTIFICATE_WARNING_DAYS)
    return verdict(
      'warn',
      `${subject} expires in ${daysLeft} days (${details.valid_to})`,
      'renew it before it expires',
    );
  return verdict(
    'pass',
    `${subject}, issued by ${details.issuer ?? 'unknown'}, valid until ${details.valid_to} (${daysLeft} days)`,
  );
}

function trustHint(code: string | undefined): string {
  switch (code) {
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
      return hintOf(
        'doctor_private_ca',
        {},
        'a self-signed or private CA: trust the issuing CA, or serve the full chain',
      );
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return 'the certificate does not name this host: use the host name it was issued for, or reissue it';
    case 'CERT_HAS_EXPIRED':
      return 'renew the certificate';
    default:
      return 'check the certificate chain the server sends';
  }
}

async function checkClock(
  url: URL,
  address: string,
  options: ProbeOptions & { now: () => number },
  push: Push,
): Promise<void> {
  let facts;
  try {
    facts = await fetchDate(url, address, options, options.now);
  } catch (error) {
    push(failure('clock', error, 'no HTTP answer to read the Date header from'));
    return;
  }
  const serverTime = facts.date ? Date.parse(facts.date) : NaN;
  if (!Number.isFinite(serverTime)) {
    push({
      id: 'clock',
      verdict: 'warn',
      message: `GET answered ${facts.status} without a usable Date header, so the clock offset is unknown`,
      hint: 'compare both clocks with NTP; signatures allow ±300 s (§5.5)',
    });
    return;
  }
  // Date has a resolution of one second: compare with the middle of the round trip.
  const offsetSeconds = Math.round((serverTime - (facts.sentAt + facts.receivedAt) / 2) / 1000);
  const details = { offset_seconds: offsetSeconds, server_date: facts.date, status: facts.status };
  const direction = offsetSeconds >= 0 ? 'ahead of' : 'behind';
  // The Date header has a resolution of one second, so ±1 s is "in step".
  const described =
    Math.abs(offsetSeconds) <= 1
      ? "the server's clock and this machine's agree within 1 s"
      : `the server's clock is ${Math.abs(offsetSeconds)} s ${direction} this machine's`;
  const ntp = 'synchronise both clocks with NTP';
  if (Math.abs(offsetSeconds) > SIGNATURE_WINDOW_SECONDS) {
    const message = `${described}: beyond the ${SIGNATURE_WINDOW_SECONDS} s window, so every signed request is rejected (§5.5)`;
    push({ id: 'clock', verdict: 'fail', message, hint: ntp, details });
  } else if (Math.abs(offsetSeconds) > CLOCK_WARNING_SECONDS) {
    const message = `${described}: within the ${SIGNATURE_WINDOW_SECONDS} s window, but it eats into it (§5.5)`;
    push({ id: 'clock', verdict: 'warn', message, hint: ntp, details });
  } else {
    const message = `${described}, well within the ${SIGNATURE_WINDOW_SECONDS} s window`;
    push({ id: 'clock', verdict: 'pass', message, details });
  }
}
