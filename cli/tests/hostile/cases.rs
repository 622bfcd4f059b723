//! A case: its name, the arguments, and what it hands the binary.

use std::borrow::Cow;

/// What a case hands the binary besides its arguments.
pub enum Input {
    Stdin(Vec<u8>),
    /// Stdin too large to hold beside the others: made when the case runs.
    HugeStdin(fn() -> String),
    /// A file for `--arrivals`, whose path is appended to the arguments.
    ArrivalsFile(Vec<u8>),
}

pub struct Case {
    pub name: String,
    pub args: Vec<String>,
    pub input: Input,
}

impl Case {
    pub fn fleet(name: impl Into<String>, args: &[&str], stdin: impl Into<Vec<u8>>) -> Case {
        Case::new(name, "fleet", args, Input::Stdin(stdin.into()))
    }

    pub fn huge_fleet(name: &str, args: &[&str], stdin: fn() -> String) -> Case {
        Case::new(name, "fleet", args, Input::HugeStdin(stdin))
    }

    pub fn arrivals(name: impl Into<String>, query: &str, file: impl Into<Vec<u8>>) -> Case {
        let input = Input::ArrivalsFile(file.into());
        Case::new(name, "run", &[query, "--arrivals"], input)
    }

    fn new(name: impl Into<String>, command: &str, args: &[&str], input: Input) -> Case {
        let mut all = vec![command.to_string()];
        all.extend(args.iter().map(|a| a.to_string()));
        Case {
            name: name.into(),
            args: all,
            input,
        }
    }

    pub fn bytes(&self) -> Cow<'_, [u8]> {
        match &self.input {
            Input::Stdin(bytes) | Input::ArrivalsFile(bytes) => Cow::Borrowed(bytes),
            Input::HugeStdin(make) => Cow::Owned(make().into_bytes()),
        }
    }

    pub fn has(&self, arg: &str) -> bool {
        self.args.iter().any(|a| a == arg)
    }
}
