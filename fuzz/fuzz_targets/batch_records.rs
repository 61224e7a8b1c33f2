//! The `check --batch` input decoder: records split on the separator, bounded in size.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for separator in [b'\n', 0] {
        let mut input = std::io::Cursor::new(data);
        let mut total = 0;
        while let Ok(Some((record, oversized))) = warden::cli::read_record(&mut input, separator) {
            assert!(record.len() <= warden::shell::MAX_INPUT_BYTES + 1);
            assert!(!oversized || record.len() == warden::shell::MAX_INPUT_BYTES + 1);
            assert!(!record.contains(&separator));
            total += 1;
            assert!(total <= data.len() + 1);
        }
    }
});
