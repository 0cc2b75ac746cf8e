//! Which addresses are not the public internet: loopback, the private ranges, shared address
//! space (CGNAT), link-local (where cloud metadata services answer), unspecified, multicast,
//! broadcast, documentation and other reserved ranges, and their IPv6 counterparts (`::1`,
//! unique-local `fc00::/7`, link-local `fe80::/10`, site-local, multicast). An IPv4 address
//! inside IPv6 (mapped `::ffff:a.b.c.d`, compatible, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) is
//! judged as that IPv4 address: the kernel dials a mapped address as the IPv4 one, and a
//! translator on the way turns the others into it.
//!
//! The proxy refuses such an address unless a rule names its host or the address itself (see
//! [`crate::Policy`]); this module only classifies.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is not public.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AddressKind {
    /// `127.0.0.0/8`, `::1`.
    Loopback,
    /// RFC 1918: `10/8`, `172.16/12`, `192.168/16`.
    Private,
    /// Carrier-grade NAT, RFC 6598: `100.64/10`.
    Shared,
    /// `169.254/16`, `fe80::/10`: where cloud metadata services answer.
    LinkLocal,
    /// IPv6 unique-local, `fc00::/7`.
    UniqueLocal,
    /// IPv6 site-local (deprecated), `fec0::/10`.
    SiteLocal,
    /// `0.0.0.0/8`, `::`: on Linux, connecting to it reaches this machine.
    Unspecified,
    /// `224/4`, `ff00::/8`.
    Multicast,
    /// `255.255.255.255`.
    Broadcast,
    /// `192.0.2/24`, `198.51.100/24`, `203.0.113/24`, `2001:db8::/32`.
    Documentation,
    /// IETF assignments, benchmarking, `240/4`, discard-only, local-use NAT64.
    Reserved,
}

impl AddressKind {
    /// The kind of `address`, or `None` when it is public.
    pub fn of(address: IpAddr) -> Option<AddressKind> {
        match address {
            IpAddr::V4(address) => of_v4(address),
            IpAddr::V6(address) => of_v6(address),
        }
    }
}

impl AddressKind {
    /// What the kind is, for a person: "a loopback address".
    pub fn description(self) -> &'static str {
        match self {
            AddressKind::Loopback => "a loopback address",
            AddressKind::Private => "a private address (RFC 1918)",
            AddressKind::Shared => "a shared address (carrier-grade NAT, RFC 6598)",
            AddressKind::LinkLocal => "a link-local address (where cloud metadata services answer)",
            AddressKind::UniqueLocal => "a unique-local address (IPv6 ULA)",
            AddressKind::SiteLocal => "a site-local address",
            AddressKind::Unspecified => "an unspecified address",
            AddressKind::Multicast => "a multicast address",
            AddressKind::Broadcast => "the broadcast address",
            AddressKind::Documentation => "a documentation address",
            AddressKind::Reserved => "a reserved address",
        }
    }
}

impl fmt::Display for AddressKind {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.description())
    }
}

fn of_v4(address: Ipv4Addr) -> Option<AddressKind> {
    let [a, b, c, _] = address.octets();
    Some(match (a, b, c) {
        (0, _, _) => AddressKind::Unspecified,
        (127, _, _) => AddressKind::Loopback,
        (10, _, _) | (192, 168, _) | (172, 16..=31, _) => AddressKind::Private,
        (100, 64..=127, _) => AddressKind::Shared,
        (169, 254, _) => AddressKind::LinkLocal,
        (192, 0, 0) | (198, 18..=19, _) => AddressKind::Reserved,
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => AddressKind::Documentation,
        (224..=239, _, _) => AddressKind::Multicast,
        _ if address == Ipv4Addr::BROADCAST => AddressKind::Broadcast,
        (240..=255, _, _) => AddressKind::Reserved,
        _ => return None,
    })
}

fn of_v6(address: Ipv6Addr) -> Option<AddressKind> {
    if let Some(embedded) = embedded_v4(address) {
        return of_v4(embedded);
    }
    let segments = address.segments();
    Some(match segments[0] {
        _ if address.is_unspecified() => AddressKind::Unspecified,
        _ if address.is_loopback() => AddressKind::Loopback,
        0x0100 if segments[1..4] == [0, 0, 0] => AddressKind::Reserved,
        0x0064 if segments[1] == 0xff9b && segments[2] == 1 => AddressKind::Reserved,
        0x2001 if segments[1] == 0x0db8 => AddressKind::Documentation,
        0xfc00..=0xfdff => AddressKind::UniqueLocal,
        0xfe80..=0xfebf => AddressKind::LinkLocal,
        0xfec0..=0xfeff => AddressKind::SiteLocal,
        0xff00..=0xffff => AddressKind::Multicast,
        _ => return None,
    })
}

/// The IPv4 address inside an IPv4-mapped, IPv4-compatible, NAT64 or 6to4 IPv6 address.
fn embedded_v4(address: Ipv6Addr) -> Option<Ipv4Addr> {
    let segments = address.segments();
    let from = |high: u16, low: u16| {
        let [a, b] = high.to_be_bytes();
        let [c, d] = low.to_be_bytes();
        Ipv4Addr::new(a, b, c, d)
    };
    match segments {
        [0, 0, 0, 0, 0, 0xffff, high, low] => Some(from(high, low)),
        // `::a.b.c.d` (deprecated IPv4-compatible); `::` and `::1` are themselves.
        [0, 0, 0, 0, 0, 0, high, low] if high != 0 => Some(from(high, low)),
        [0x0064, 0xff9b, 0, 0, 0, 0, high, low] => Some(from(high, low)),
        [0x2002, high, low, ..] => Some(from(high, low)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_non_public_range_is_classified_and_public_addresses_are_not() {
        use AddressKind::*;
        let table = [
            ("127.0.0.1", Loopback),
            ("127.255.0.9", Loopback),
            ("10.1.2.3", Private),
            ("172.16.0.1", Private),
            ("172.31.255.255", Private),
            ("192.168.1.1", Private),
            ("100.64.0.1", Shared),
            ("100.127.255.254", Shared),
            ("169.254.169.254", LinkLocal),
            ("0.0.0.0", Unspecified),
            ("0.1.2.3", Unspecified),
            ("224.0.0.1", Multicast),
            ("239.255.255.250", Multicast),
            ("255.255.255.255", Broadcast),
            ("240.0.0.1", Reserved),
            ("192.0.0.8", Reserved),
            ("198.18.0.1", Reserved),
            ("192.0.2.7", Documentation),
            ("::1", Loopback),
            ("::", Unspecified),
            ("fd00:ec2::254", UniqueLocal),
            ("fc00::1", UniqueLocal),
            ("fe80::1", LinkLocal),
            ("fec0::1", SiteLocal),
            ("ff02::1", Multicast),
            ("2001:db8::1", Documentation),
            ("100::1", Reserved),
            ("64:ff9b:1::1", Reserved),
            // IPv4 inside IPv6 is judged as the IPv4 address.
            ("::ffff:127.0.0.1", Loopback),
            ("::ffff:169.254.169.254", LinkLocal),
            ("::ffff:0.0.0.0", Unspecified),
            ("::10.0.0.1", Private),
            ("64:ff9b::192.168.0.1", Private),
            ("2002:0a00:0001::1", Private),
        ];
        for (text, kind) in table {
            let address: IpAddr = text.parse().unwrap();
            assert_eq!(AddressKind::of(address), Some(kind), "{text}");
        }
        for public in [
            "1.1.1.1",
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
            "192.169.0.1",
            "2606:4700:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::8.8.8.8",
        ] {
            let address: IpAddr = public.parse().unwrap();
            assert_eq!(AddressKind::of(address), None, "{public}");
        }
    }
}
