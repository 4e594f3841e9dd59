//! ICU's converter names for the input encodings weir has, matched as ICU matches them.

use super::codec::Encoding;

/// ICU's aliases of the converters weir has, compared as ICU compares names (see [`normalize`]).
const ALIASES: &[(Encoding, &[&str])] = &[
    (
        Encoding::Utf8,
        &[
            "utf8",
            "ibm1208",
            "ibm1209",
            "ibm5304",
            "ibm5305",
            "ibm13496",
            "ibm13497",
            "ibm17592",
            "ibm17593",
            "windows65001",
            "cp1208",
            "xutf8j",
            "unicode11utf8",
            "unicode20utf8",
        ],
    ),
    (
        Encoding::Utf16,
        &[
            "utf16",
            "iso10646ucs2",
            "ibm1204",
            "ibm1205",
            "unicode",
            "csunicode",
            "ucs2",
        ],
    ),
    (
        Encoding::Utf16Be,
        &[
            "utf16be",
            "xutf16be",
            "utf16bigendian",
            "ibm1200",
            "ibm1201",
            "ibm13488",
            "ibm13489",
            "ibm17584",
            "ibm17585",
            "ibm21680",
            "ibm21681",
            "ibm25776",
            "ibm25777",
            "ibm29872",
            "ibm29873",
            "ibm61955",
            "ibm61956",
            "windows1201",
            "cp1200",
            "cp1201",
            // ICU's names relative to a little-endian host, as TensorFlow's builds run on.
            "utf16oppositeendian",
        ],
    ),
    (
        Encoding::Utf16Le,
        &[
            "utf16le",
            "xutf16le",
            "utf16littleendian",
            "ibm1202",
            "ibm1203",
            "ibm13490",
            "ibm13491",
            "ibm17586",
            "ibm17587",
            "ibm21682",
            "ibm21683",
            "ibm25778",
            "ibm25779",
            "ibm29874",
            "ibm29875",
            "windows1200",
            "utf16platformendian",
        ],
    ),
    (
        Encoding::Utf32,
        &[
            "utf32",
            "iso10646ucs4",
            "ibm1236",
            "ibm1237",
            "csucs4",
            "ucs4",
        ],
    ),
    (
        Encoding::Utf32Be,
        &[
            "utf32be",
            "utf32bigendian",
            "ibm1232",
            "ibm1233",
            "ibm9424",
            "utf32oppositeendian",
        ],
    ),
    (
        Encoding::Utf32Le,
        &[
            "utf32le",
            "utf32littleendian",
            "ibm1234",
            "ibm1235",
            "utf32platformendian",
        ],
    ),
    (
        Encoding::Ascii,
        &[
            "usascii",
            "ascii",
            "ansix341968",
            "ansix341986",
            "iso646irv1991",
            "iso646irv1983",
            "iso646us",
            "us",
            "csascii",
            "isoir6",
            "cp367",
            "ascii7",
            "646",
            "windows20127",
            "ibm367",
        ],
    ),
    (
        Encoding::Latin1,
        &[
            "iso88591",
            "ibm819",
            "cp819",
            "latin1",
            "csisolatin1",
            "isoir100",
            "iso885911987",
            "88591",
            "l1",
            "819",
        ],
    ),
    (
        Encoding::Windows1252,
        &[
            "windows1252",
            "cp1252",
            "ibm5348",
            "ibm5348p1001997",
            "xcp1252",
        ],
    ),
    (
        Encoding::Latin9,
        &[
            "iso885915",
            "ibm923",
            "ibm923p1001998",
            "latin9",
            "l9",
            "885915",
            "latin0",
            "csisolatin0",
            "csisolatin9",
            "iso885915fdis",
            "cp923",
            "923",
            "windows28605",
        ],
    ),
];

/// A converter name as ICU compares it (`ucnv_io_stripASCIIForCompare`): letters lowercased,
/// digits kept except a `0` that starts a number and is followed by another digit, everything
/// else dropped.
fn normalize(name: &str) -> String {
    let b = name.as_bytes();
    let mut out = String::with_capacity(b.len());
    let mut after_digit = false;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'0' => {
                let next_digit = b.get(i + 1).is_some_and(u8::is_ascii_digit);
                if !after_digit && next_digit {
                    continue;
                }
                out.push('0');
            }
            b'1'..=b'9' => {
                after_digit = true;
                out.push(c as char);
            }
            _ if c.is_ascii_alphabetic() => {
                after_digit = false;
                out.push(c.to_ascii_lowercase() as char);
            }
            _ => after_digit = false,
        }
    }
    out
}

impl Encoding {
    /// The converter ICU opens for `name` (options after a `,` are ignored, as ICU ignores the
    /// ones these converters do not take), if weir has it.
    pub(crate) fn by_icu_name(name: &str) -> Option<Encoding> {
        let (base, options) = match name.split_once(',') {
            Some((b, o)) => (b, Some(o)),
            None => (name, None),
        };
        let key = normalize(base);
        let enc = ALIASES
            .iter()
            .find(|(_, names)| names.contains(&key.as_str()))
            .map(|(e, _)| *e)?;
        // ICU's `version=` option selects Java's BOM-strict UTF-16 variants, which weir lacks.
        let versioned = options.is_some_and(|o| {
            o.split(',')
                .any(|kv| kv.trim_start().to_ascii_lowercase().starts_with("version="))
        });
        if versioned && matches!(enc, Encoding::Utf16 | Encoding::Utf16Be | Encoding::Utf16Le) {
            return None;
        }
        Some(enc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn icu_names() {
        assert_eq!(Encoding::by_icu_name("UTF-008"), Some(Encoding::Utf8));
        assert_eq!(Encoding::by_icu_name(" u t f 8"), Some(Encoding::Utf8));
        assert_eq!(Encoding::by_icu_name("ISO-8859-01"), Some(Encoding::Latin1));
        assert_eq!(
            Encoding::by_icu_name("ISO_646.irv:1991"),
            Some(Encoding::Ascii)
        );
        assert_eq!(Encoding::by_icu_name("UTF-8,foo"), Some(Encoding::Utf8));
        assert_eq!(Encoding::by_icu_name("UTF-16,version=1"), None);
        assert_eq!(Encoding::by_icu_name("bogus"), None);
        assert_eq!(Encoding::by_icu_name(""), None);
    }
}
