"""The table's own certificate, so phones reach the tablet at an https address.

Browsers give the camera to a page (live scanning) only in a secure context: https, or the
device itself. A tablet on a home Wi-Fi has no name a public authority would sign, so it makes
its own certificate once, for its LAN address, and keeps it in its data folder; each phone
accepts it once ("proceed anyway"), and its fingerprint is shown on the tablet so the table can
check it is the tablet's. The certificate is remade when the tablet's address changes.
"""
from __future__ import annotations

import datetime
import hashlib
import ipaddress
import os
import ssl
from pathlib import Path

CERT_FILE = "phone-https.pem"
KEY_FILE = "phone-https.key"
DAYS = 825  # the longest a browser accepts for a certificate


def _make(host: str, cert_path: Path, key_path: Path) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"Table companion {host}")])
    now = datetime.datetime.now(datetime.timezone.utc)
    alt: list[x509.GeneralName]
    try:
        alt = [x509.IPAddress(ipaddress.ip_address(host))]
    except ValueError:
        alt = [x509.DNSName(host)]
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=DAYS))
            .add_extension(x509.SubjectAlternativeName(alt), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    key_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM,
                                  serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def _names(cert_path: Path) -> set[str]:
    from cryptography import x509
    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return set()
    return {str(v) for v in san.get_values_for_type(x509.IPAddress)} | set(
        san.get_values_for_type(x509.DNSName))


def table_certificate(data_dir: str | os.PathLike, host: str) -> tuple[Path, Path]:
    """The certificate and key files for ``host`` (made, or remade for a new address)."""
    cert_path, key_path = Path(data_dir) / CERT_FILE, Path(data_dir) / KEY_FILE
    if not (cert_path.exists() and key_path.exists()) or host not in _names(cert_path):
        _make(host, cert_path, key_path)
    return cert_path, key_path


def server_context(data_dir: str | os.PathLike, host: str) -> ssl.SSLContext:
    try:
        cert_path, key_path = table_certificate(data_dir, host)
    except ImportError:
        from companion.core.events import BadInput
        from companion.core.i18n import keyed
        raise BadInput(keyed("phone.no_cryptography")) from None
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(cert_path, key_path)
    return ctx


def fingerprint(data_dir: str | os.PathLike) -> str:
    """SHA-256 of the certificate, as browsers show it (first 8 bytes: enough to compare)."""
    der = ssl.PEM_cert_to_DER_cert((Path(data_dir) / CERT_FILE).read_text())
    digest = hashlib.sha256(der).hexdigest().upper()
    return ":".join(digest[i:i + 2] for i in range(0, 16, 2))
