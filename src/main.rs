use std::process::ExitCode;

fn main() -> ExitCode {
    gpulint::cli::main()
}
