//! The `teeoracle` command line (`teeoracle::cli`, which the Python
//! package's `teeoracle` command runs too).

#![forbid(unsafe_code)]

fn main() {
    std::process::exit(teeoracle::cli::main());
}
