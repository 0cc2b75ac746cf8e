//! The companion launcher of the exec sandbox (SPEC §10): what pincer's own executable does
//! when started as `pincer-exec-sandbox`, in a binary small enough to start in a fraction of the
//! time. pincer starts every confined command (and its probe) through it when it is installed
//! beside pincer, and through itself otherwise.

use std::io::Write as _;
use std::process::ExitCode;

fn main() -> ExitCode {
    pincer::tools::launcher_exit().unwrap_or_else(|| {
        let _ = writeln!(
            std::io::stderr(),
            "error: {} is started by pincer to confine the commands it runs; it is not a \
             command of its own",
            pincer::tools::ARG0
        );
        ExitCode::from(2)
    })
}
