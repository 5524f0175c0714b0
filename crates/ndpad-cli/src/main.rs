fn main() {
    eprintln!("ndpad: the command line is being built");
    std::process::exit(2);
}
