//! The SSRF guard: which network destinations the fetcher may reach.
//!
//! The guard is applied to every hop (the first URL and each redirect target)
//! and, for host names, inside the DNS resolver handed to the HTTP client, so
//! that the address that was checked is the address that is connected to
//! (no DNS-rebinding window between check and connect).

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;

use url::{Host, Url};

/// Host names that always name a cloud metadata service.
const METADATA_HOSTS: &[&str] = &[
    "metadata.google.internal",
    "metadata.goog",
    "metadata",
    "instance-data",
    "instance-data.ec2.internal",
];

/// Why a cloud metadata address is refused (kept even by [`NetworkGuard::private_allowed`]).
const METADATA_ADDRESS: &str = "cloud metadata address";

/// An IP network (`10.0.0.0/8`, `fd00::/8`, or a single address).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpNet {
    addr: IpAddr,
    prefix: u8,
}

impl IpNet {
    /// Parse `a.b.c.d/n`, `x::y/n` or a bare address (a /32 or /128).
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        let (a, p) = match s.split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (s, None),
        };
        let addr: IpAddr = a.trim().parse().ok()?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match p {
            Some(p) => p.trim().parse::<u8>().ok().filter(|p| *p <= max)?,
            None => max,
        };
        Some(Self { addr, prefix })
    }

    /// Whether `ip` lies in this network (IPv4-mapped IPv6 addresses count as IPv4).
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.addr, canonical(ip)) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let bits = u32::from(net) ^ u32::from(ip);
                self.prefix == 0 || bits >> (32 - u32::from(self.prefix)) == 0
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let bits = u128::from(net) ^ u128::from(ip);
                self.prefix == 0 || bits >> (128 - u32::from(self.prefix)) == 0
            }
            _ => false,
        }
    }
}

/// IPv4-mapped (`::ffff:a.b.c.d`) and IPv4-compatible/NAT64-less forms reduced to IPv4.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(v6),
        },
        v4 => v4,
    }
}

/// Why an address is not a public unicast destination, or `None` when it is.
pub fn classify_ip(ip: IpAddr) -> Option<&'static str> {
    match canonical(ip) {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let o = ip.octets();
    if ip == Ipv4Addr::new(169, 254, 169, 254)
        || ip == Ipv4Addr::new(169, 254, 170, 2)
        || ip == Ipv4Addr::new(100, 100, 100, 200)
    {
        return Some(METADATA_ADDRESS);
    }
    if ip.is_unspecified() || o[0] == 0 {
        return Some("unspecified address");
    }
    if ip.is_loopback() {
        return Some("loopback address");
    }
    if ip.is_private() {
        return Some("private address");
    }
    if ip.is_link_local() {
        return Some("link-local address");
    }
    if o[0] == 100 && (o[1] & 0xc0) == 64 {
        return Some("carrier-grade NAT address (100.64.0.0/10)");
    }
    if ip.is_broadcast() {
        return Some("broadcast address");
    }
    if ip.is_multicast() {
        return Some("multicast address");
    }
    if o[0] >= 240 {
        return Some("reserved address (240.0.0.0/4)");
    }
    if o[0] == 192 && o[1] == 0 && o[2] == 0 {
        return Some("IETF protocol assignment (192.0.0.0/24)");
    }
    if o[0] == 198 && (o[1] & 0xfe) == 18 {
        return Some("benchmarking address (198.18.0.0/15)");
    }
    if ip.is_documentation() {
        return Some("documentation address");
    }
    None
}

fn classify_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let seg = ip.segments();
    if seg == [0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254] {
        return Some(METADATA_ADDRESS);
    }
    if ip.is_unspecified() {
        return Some("unspecified address");
    }
    if ip.is_loopback() {
        return Some("loopback address");
    }
    if ip.is_multicast() {
        return Some("multicast address");
    }
    if (seg[0] & 0xffc0) == 0xfe80 {
        return Some("link-local address (fe80::/10)");
    }
    if (seg[0] & 0xffc0) == 0xfec0 {
        return Some("site-local address (fec0::/10)");
    }
    if (seg[0] & 0xfe00) == 0xfc00 {
        return Some("unique-local address (fc00::/7)");
    }
    if seg[0] == 0x2001 && seg[1] == 0x0db8 {
        return Some("documentation address (2001:db8::/32)");
    }
    // IPv4-compatible (deprecated) ::a.b.c.d, and NAT64 64:ff9b::/96: judge the embedded IPv4.
    if seg[..6] == [0, 0, 0, 0, 0, 0] || seg[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        let v4 = Ipv4Addr::new(
            (seg[6] >> 8) as u8,
            seg[6] as u8,
            (seg[7] >> 8) as u8,
            seg[7] as u8,
        );
        return classify_v4(v4);
    }
    // 6to4 2002::/16 embeds an IPv4 address in bits 16..48.
    if seg[0] == 0x2002 {
        let v4 = Ipv4Addr::new(
            (seg[1] >> 8) as u8,
            seg[1] as u8,
            (seg[2] >> 8) as u8,
            seg[2] as u8,
        );
        return classify_v4(v4);
    }
    None
}

/// A refusal by the guard, carried through the HTTP client's error chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardRefusal {
    /// Host as written in the URL.
    pub host: String,
    /// The refused address (or the host name when refused by name).
    pub addr: String,
    /// Which rule refused it.
    pub reason: String,
}

impl std::fmt::Display for GuardRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "refused by the network guard: {} resolves to {} ({}); private, loopback and \
             link-local addresses are reached only when allowed (`--allow-private`, \
             `allow_private: true`)",
            self.host, self.addr, self.reason
        )
    }
}

impl std::error::Error for GuardRefusal {}

impl GuardRefusal {
    /// The typed refusal a fetch outcome carries ([`verity_core::Refusal`]).
    pub fn refusal(&self) -> verity_core::Refusal {
        verity_core::Refusal::NetworkGuard {
            addr: self.addr.clone(),
            reason: self.reason.clone(),
        }
    }
}

/// The SSRF guard: refuses loopback, private, link-local, unique-local, CGNAT,
/// unspecified, multicast, broadcast and cloud-metadata destinations (and
/// their IPv4-mapped IPv6 forms) unless allow-listed. On by default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkGuard {
    enabled: bool,
    /// Private, loopback and link-local destinations pass; cloud metadata
    /// addresses and host names are still refused unless allow-listed.
    private_ok: bool,
    allow_hosts: Vec<(String, Option<u16>)>,
    allow_cidrs: Vec<IpNet>,
}

impl Default for NetworkGuard {
    fn default() -> Self {
        Self {
            enabled: true,
            private_ok: false,
            allow_hosts: Vec::new(),
            allow_cidrs: Vec::new(),
        }
    }
}

impl NetworkGuard {
    /// The default guard (enabled, nothing allow-listed).
    pub fn new() -> Self {
        Self::default()
    }

    /// A guard that lets everything through (trusted environments only).
    pub fn disabled() -> Self {
        Self {
            enabled: false,
            ..Self::default()
        }
    }

    /// A guard for trusted networks (`allow_private`, intranets, tests):
    /// private, loopback and link-local destinations pass, but cloud metadata
    /// services (`169.254.169.254`, `fd00:ec2::254`, `metadata.google.internal`,
    /// …) stay refused unless named with [`NetworkGuard::allow_host`] or
    /// [`NetworkGuard::allow_cidr`]: reaching them hands out the machine's
    /// cloud credentials.
    pub fn private_allowed() -> Self {
        Self {
            private_ok: true,
            ..Self::default()
        }
    }

    /// Whether the guard is active.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Allow a host (`name`, `name:port`, `127.0.0.1:8080`, `[::1]:8080`) whatever it resolves to.
    /// With a port, only that port is allowed.
    pub fn allow_host(mut self, host: &str) -> Self {
        let h = host.trim().to_ascii_lowercase();
        let parsed = if let Some(rest) = h.strip_prefix('[') {
            match rest.split_once(']') {
                Some((ip, tail)) => (
                    ip.to_string(),
                    tail.strip_prefix(':').and_then(|p| p.parse().ok()),
                ),
                None => (rest.to_string(), None),
            }
        } else {
            match h.rsplit_once(':') {
                Some((name, port)) if !name.contains(':') => match port.parse::<u16>() {
                    Ok(p) => (name.to_string(), Some(p)),
                    Err(_) => (h.clone(), None),
                },
                _ => (h.clone(), None),
            }
        };
        self.allow_hosts
            .push((parsed.0.trim_end_matches('.').to_string(), parsed.1));
        self
    }

    /// Allow an IP network (`10.0.0.0/8`, `::1/128`, a bare address).
    pub fn allow_cidr(mut self, cidr: &str) -> verity_core::Result<Self> {
        match IpNet::parse(cidr) {
            Some(net) => {
                self.allow_cidrs.push(net);
                Ok(self)
            }
            None => Err(verity_core::ConfigError::Invalid {
                key: "allow_cidrs".into(),
                message: format!("`{cidr}` is not an IP network"),
            }
            .into()),
        }
    }

    fn host_allowed(&self, host: &str, port: Option<u16>) -> bool {
        self.allow_hosts
            .iter()
            .any(|(h, p)| h == host && (p.is_none() || *p == port))
    }

    fn host_name_allowed(&self, host: &str) -> bool {
        self.allow_hosts.iter().any(|(h, _)| h == host)
    }

    /// Check an address (after resolution).
    pub fn check_ip(&self, ip: IpAddr) -> Result<(), &'static str> {
        if !self.enabled || self.allow_cidrs.iter().any(|n| n.contains(ip)) {
            return Ok(());
        }
        match classify_ip(ip) {
            Some(METADATA_ADDRESS) => Err(METADATA_ADDRESS),
            Some(_) if self.private_ok => Ok(()),
            Some(reason) => Err(reason),
            None => Ok(()),
        }
    }

    /// Check a URL before any connection: scheme, IP-literal hosts,
    /// metadata host names and allow-list ports. Host names are checked again,
    /// after DNS resolution, by the resolver.
    pub fn check_url(&self, url: &Url) -> Result<(), GuardRefusal> {
        let host_str = url.host_str().unwrap_or("").to_ascii_lowercase();
        let refuse = |addr: String, reason: &str| GuardRefusal {
            host: host_str.clone(),
            addr,
            reason: reason.to_string(),
        };
        if !matches!(url.scheme(), "http" | "https") {
            return Err(refuse(
                url.scheme().to_string(),
                "only http and https are allowed",
            ));
        }
        if !self.enabled {
            return Ok(());
        }
        let port = url.port_or_known_default();
        let bare = host_str
            .trim_start_matches('[')
            .trim_end_matches(']')
            .trim_end_matches('.')
            .to_string();
        if self.host_allowed(&bare, port) {
            return Ok(());
        }
        match url.host() {
            Some(Host::Ipv4(ip)) => self
                .check_ip(IpAddr::V4(ip))
                .map_err(|r| refuse(ip.to_string(), r)),
            Some(Host::Ipv6(ip)) => self
                .check_ip(IpAddr::V6(ip))
                .map_err(|r| refuse(ip.to_string(), r)),
            Some(Host::Domain(_)) => {
                if METADATA_HOSTS.contains(&bare.as_str()) {
                    return Err(refuse(bare.clone(), "cloud metadata host name"));
                }
                if self.host_name_allowed(&bare) {
                    return Err(refuse(
                        format!("{bare}:{}", port.unwrap_or(0)),
                        "host is allow-listed on another port only",
                    ));
                }
                Ok(())
            }
            None => Err(refuse(String::new(), "URL has no host")),
        }
    }
}

/// DNS resolver for the HTTP client that drops refused addresses, so the
/// client can only connect to addresses that passed the guard.
#[derive(Debug, Clone)]
pub(crate) struct GuardedResolver {
    pub(crate) guard: Arc<NetworkGuard>,
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let guard = self.guard.clone();
        let host = name.as_str().trim_end_matches('.').to_ascii_lowercase();
        let fut: Pin<Box<dyn Future<Output = Result<reqwest::dns::Addrs, BoxError>> + Send>> =
            Box::pin(async move {
                let addrs: Vec<SocketAddr> =
                    tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
                if !guard.enabled || guard.host_name_allowed(&host) {
                    return Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs);
                }
                if METADATA_HOSTS.contains(&host.as_str()) {
                    return Err(Box::new(GuardRefusal {
                        host: host.clone(),
                        addr: host,
                        reason: "cloud metadata host name".into(),
                    }) as BoxError);
                }
                let mut ok = Vec::with_capacity(addrs.len());
                let mut first_refusal = None;
                for a in addrs {
                    match guard.check_ip(a.ip()) {
                        Ok(()) => ok.push(a),
                        Err(reason) => {
                            if first_refusal.is_none() {
                                first_refusal = Some(GuardRefusal {
                                    host: host.clone(),
                                    addr: a.ip().to_string(),
                                    reason: reason.to_string(),
                                });
                            }
                        }
                    }
                }
                // A name with any refused address is refused as a whole: mixing
                // public and internal answers is a classic rebinding trick.
                if let Some(refusal) = first_refusal {
                    return Err(Box::new(refusal) as BoxError);
                }
                if ok.is_empty() {
                    return Err(format!("{host}: no address").into());
                }
                Ok(Box::new(ok.into_iter()) as reqwest::dns::Addrs)
            });
        fut
    }
}

/// Find a [`GuardRefusal`] in an error's source chain.
pub(crate) fn find_refusal(err: &(dyn std::error::Error + 'static)) -> Option<GuardRefusal> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = cur {
        if let Some(r) = e.downcast_ref::<GuardRefusal>() {
            return Some(r.clone());
        }
        cur = e.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn refuses_internal_ranges() {
        let g = NetworkGuard::default();
        for bad in [
            "127.0.0.1",
            "127.8.9.10",
            "::1",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.1.1",
            "169.254.169.254",
            "fe80::1",
            "fc00::1",
            "fd12:3456::1",
            "100.64.0.1",
            "100.127.255.255",
            "0.0.0.0",
            "::",
            "224.0.0.1",
            "ff02::1",
            "255.255.255.255",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::ffff:10.0.0.1",
            "fd00:ec2::254",
            "64:ff9b::7f00:1",
            "2002:7f00:1::",
        ] {
            assert!(g.check_ip(ip(bad)).is_err(), "{bad} should be refused");
        }
        for good in [
            "93.184.216.34",
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
        ] {
            assert!(g.check_ip(ip(good)).is_ok(), "{good} should pass");
        }
        assert_eq!(
            g.check_ip(ip("169.254.169.254")),
            Err("cloud metadata address")
        );
        assert_eq!(
            g.check_ip(ip("fd00:ec2::254")),
            Err("cloud metadata address")
        );
    }

    #[test]
    fn cidr_allow_list_and_disabled() {
        let g = NetworkGuard::default().allow_cidr("10.0.0.0/8").unwrap();
        assert!(g.check_ip(ip("10.9.9.9")).is_ok());
        assert!(g.check_ip(ip("::ffff:10.9.9.9")).is_ok());
        assert!(g.check_ip(ip("192.168.0.1")).is_err());
        assert!(NetworkGuard::default().allow_cidr("10.0.0.0/33").is_err());
        assert!(NetworkGuard::default().allow_cidr("nope").is_err());
        assert!(NetworkGuard::disabled().check_ip(ip("127.0.0.1")).is_ok());
        let n = IpNet::parse("fe80::/10").unwrap();
        assert!(n.contains(ip("febf::1")));
        assert!(!n.contains(ip("fec0::1")));
        assert!(IpNet::parse("0.0.0.0/0").unwrap().contains(ip("1.2.3.4")));
    }

    #[test]
    fn private_allowed_still_refuses_metadata_unless_named() {
        let g = NetworkGuard::private_allowed();
        for ok in [
            "127.0.0.1",
            "10.1.2.3",
            "192.168.1.1",
            "169.254.1.1",
            "::1",
            "fd12::1",
        ] {
            assert!(g.check_ip(ip(ok)).is_ok(), "{ok} should pass");
        }
        for meta in [
            "169.254.169.254",
            "169.254.170.2",
            "100.100.100.200",
            "fd00:ec2::254",
            "::ffff:169.254.169.254",
        ] {
            assert_eq!(g.check_ip(ip(meta)), Err(METADATA_ADDRESS), "{meta}");
        }
        let url = |u: &str| Url::parse(u).unwrap();
        assert!(g
            .check_url(&url("http://169.254.169.254/latest/meta-data/"))
            .is_err());
        assert!(g
            .check_url(&url("http://metadata.google.internal/"))
            .is_err());
        assert!(g.check_url(&url("http://127.0.0.1:8080/")).is_ok());
        // Named explicitly: reached.
        let named = NetworkGuard::private_allowed().allow_host("169.254.169.254");
        assert!(named
            .check_url(&url("http://169.254.169.254/latest/"))
            .is_ok());
        let cidr = NetworkGuard::private_allowed()
            .allow_cidr("169.254.169.254")
            .unwrap();
        assert!(cidr.check_ip(ip("169.254.169.254")).is_ok());
    }

    #[test]
    fn a_refusal_becomes_one_typed_error() {
        let r = GuardRefusal {
            host: "127.0.0.1".into(),
            addr: "127.0.0.1".into(),
            reason: "loopback address".into(),
        };
        let url = Url::parse("http://127.0.0.1:9/x").unwrap();
        let f = verity_core::FetchedSource {
            url: url.clone(),
            final_url: url,
            status: verity_core::FetchStatus::Blocked,
            http_status: None,
            content_type: None,
            parsed: None,
            detail: Some(r.to_string()),
            refusal: Some(r.refusal()),
            fetched_at: chrono::Utc::now(),
        };
        let e = f.error().expect("a refusal is an error");
        assert!(
            matches!(&e, verity_core::FetchError::Blocked { addr, reason, .. }
                if addr == "127.0.0.1" && reason == "loopback address"),
            "{e:?}"
        );
        let text = e.to_string();
        assert_eq!(text.matches("network guard").count(), 1, "{text}");
        // The words do not decide: the same detail without the typed
        // refusal, or robots.txt's refusal with the guard's words.
        let robots = verity_core::FetchedSource {
            refusal: Some(verity_core::Refusal::RobotsTxt),
            ..f.clone()
        };
        assert!(matches!(
            robots.error(),
            Some(verity_core::FetchError::RobotsDisallowed(_))
        ));
    }

    #[test]
    fn url_checks() {
        let g = NetworkGuard::default()
            .allow_host("127.0.0.1:8080")
            .allow_host("intranet.test:9000");
        let u = |s: &str| Url::parse(s).unwrap();
        assert!(g.check_url(&u("http://127.0.0.1:8080/x")).is_ok());
        assert!(g.check_url(&u("http://127.0.0.1:8081/x")).is_err());
        assert!(g.check_url(&u("http://[::1]:8080/")).is_err());
        assert!(g
            .check_url(&u("http://169.254.169.254/latest/meta-data/"))
            .is_err());
        assert!(g
            .check_url(&u("http://metadata.google.internal/computeMetadata/v1/"))
            .is_err());
        // `localhost` is judged after DNS resolution (by the resolver), not by name.
        assert!(g.check_url(&u("http://localhost:8080/")).is_ok());
        assert!(g.check_url(&u("http://intranet.test:9000/")).is_ok());
        assert!(g.check_url(&u("http://intranet.test:9001/")).is_err());
        assert!(g.check_url(&u("ftp://example.com/")).is_err());
        assert!(g.check_url(&u("https://example.com/")).is_ok());
        // Decimal / hex IPv4 forms are normalised by the URL parser.
        assert!(g.check_url(&u("http://2130706433/")).is_err());
        assert!(g.check_url(&u("http://0x7f.1/")).is_err());
        let r = g.check_url(&u("http://10.0.0.1/")).unwrap_err();
        assert_eq!(r.reason, "private address");
        assert!(r.to_string().contains("10.0.0.1"));
    }

    #[tokio::test]
    async fn resolver_refuses_names_resolving_inside() {
        use reqwest::dns::Resolve;
        use std::str::FromStr;
        let r = GuardedResolver {
            guard: Arc::new(NetworkGuard::default()),
        };
        let err = match r
            .resolve(reqwest::dns::Name::from_str("localhost").unwrap())
            .await
        {
            Ok(_) => panic!("localhost must be refused"),
            Err(e) => e,
        };
        let refusal = find_refusal(err.as_ref()).expect("a GuardRefusal");
        assert!(refusal.reason.contains("loopback"), "{refusal}");
        let open = GuardedResolver {
            guard: Arc::new(NetworkGuard::default().allow_host("localhost")),
        };
        let addrs: Vec<_> = open
            .resolve(reqwest::dns::Name::from_str("localhost").unwrap())
            .await
            .unwrap()
            .collect();
        assert!(addrs.iter().any(|a| a.ip().is_loopback()));
    }
}
