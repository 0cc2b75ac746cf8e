//! The package registries a user can allow by one name (`--allow-host @npm`): each preset is
//! the hosts that registry's own clients contact to install packages with their default
//! settings, on any port. None is on by default.
//!
//! A preset opens a registry, not a one-way door: every registry also takes uploads (a
//! publish with a token the command holds), so a preset is about letting installs work, not
//! about what can leave. Presets do not name their hosts in the sense of [`crate::Policy`]: a
//! preset's host that resolves to a private address is refused unless the user pins it
//! (`[sandbox.network] resolve`) or names it in a rule of their own.

/// One preset: its name (without the `@`), the hosts it stands for, and what uses them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    pub name: &'static str,
    pub hosts: &'static [&'static str],
    /// One line for the documentation: which clients, and why each host.
    pub about: &'static str,
}

/// Every preset, in the order the documentation lists them.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "npm",
        hosts: &["registry.npmjs.org", "registry.yarnpkg.com"],
        about: "the npm registry: npm and pnpm use registry.npmjs.org for metadata and \
                tarballs; yarn uses registry.yarnpkg.com, a name for the same registry",
    },
    Preset {
        name: "pypi",
        hosts: &["pypi.org", "files.pythonhosted.org"],
        about: "the Python Package Index: pip and uv read the index at pypi.org and download \
                distributions from files.pythonhosted.org",
    },
    Preset {
        name: "crates",
        hosts: &["index.crates.io", "static.crates.io", "crates.io"],
        about: "crates.io: cargo reads the sparse index at index.crates.io, downloads crates \
                from static.crates.io, and calls the crates.io API for `cargo search`, \
                `cargo info` and `cargo publish`",
    },
    Preset {
        name: "go",
        hosts: &[
            "proxy.golang.org",
            "sum.golang.org",
            "storage.googleapis.com",
        ],
        about: "the Go module mirror: the go command downloads modules from proxy.golang.org, \
                checks them against sum.golang.org, and follows the mirror's redirects of some \
                module archives to storage.googleapis.com (Google Cloud Storage: any bucket \
                there is reachable with this preset)",
    },
    Preset {
        name: "debian",
        hosts: &["deb.debian.org", "security.debian.org"],
        about: "Debian's archive: apt's default sources are deb.debian.org (the archive and \
                debian-security) and, on older releases, security.debian.org; over HTTP (port \
                80) as apt's default, or HTTPS",
    },
];

/// The preset called `name` (without the `@`), case-insensitive.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS
        .iter()
        .find(|preset| preset.name.eq_ignore_ascii_case(name))
}

/// The presets as a Markdown table (the crate's README holds it; a test keeps the two equal).
pub fn markdown_table() -> String {
    let mut table = String::from("| preset | hosts | what uses them |\n| --- | --- | --- |\n");
    for preset in PRESETS {
        let hosts: Vec<String> = preset
            .hosts
            .iter()
            .map(|host| format!("`{host}`"))
            .collect();
        table.push_str(&format!(
            "| `@{}` | {} | {} |\n",
            preset.name,
            hosts.join(", "),
            preset.about
        ));
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DomainName;

    #[test]
    fn the_readme_lists_the_presets_as_they_are() {
        let readme = include_str!("../README.md");
        let start = "<!-- presets: generated from src/presets.rs -->\n";
        let begin = readme
            .find(start)
            .expect("the README marks the presets table")
            + start.len();
        let end = begin
            + readme[begin..]
                .find("<!-- /presets -->")
                .expect("and its end");
        assert_eq!(
            &readme[begin..end],
            markdown_table(),
            "update the README's table from presets::markdown_table()"
        );
    }

    #[test]
    fn every_preset_host_is_a_canonical_name() {
        for preset in PRESETS {
            for host in preset.hosts {
                assert_eq!(
                    DomainName::parse(host).unwrap().as_str(),
                    *host,
                    "@{}",
                    preset.name
                );
            }
        }
    }
}
