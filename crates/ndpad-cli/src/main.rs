//! `ndpad`: the command line (the code is the `ndpad_cli` library, which the Python
//! package's `ndpad` command runs too).

fn main() {
    std::process::exit(ndpad_cli::main(std::env::args_os()));
}
