// Test helper for the JUnit XML written by //analysis/nightly:regression and
// //analysis/nightly:outliers_lib: a strict XML 1.0 well-formedness check (enough
// for what CI servers parse: elements, attributes, character data, entity
// references, one prolog), without an XML library.

#ifndef DISSECT_ANALYSIS_NIGHTLY_JUNIT_TEST_UTIL_H_
#define DISSECT_ANALYSIS_NIGHTLY_JUNIT_TEST_UTIL_H_

#include <cctype>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace dissect::analysis::testing {

namespace xml_internal {

inline bool NameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
inline bool NameChar(char c) {
  return NameStart(c) || std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.';
}

// Checks the character data or attribute value `text`: no '<', every '&'
// one of the five named entities or a character reference; control
// characters other than tab, newline and carriage return are not XML.
inline std::string CheckText(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '<') return "raw '<' in text";
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return "control character in text";
    if (c != '&') continue;
    const size_t end = text.find(';', i);
    if (end == std::string_view::npos) return "unterminated entity";
    const std::string_view entity = text.substr(i + 1, end - i - 1);
    static const std::set<std::string_view> kNamed = {"amp", "lt", "gt", "quot", "apos"};
    bool ok = kNamed.count(entity) > 0;
    if (!ok && entity.size() > 1 && entity[0] == '#') {
      ok = true;
      const bool hex = entity[1] == 'x';
      for (size_t j = hex ? 2 : 1; j < entity.size(); ++j) {
        ok = ok && (hex ? std::isxdigit(static_cast<unsigned char>(entity[j]))
                        : std::isdigit(static_cast<unsigned char>(entity[j])));
      }
      ok = ok && entity.size() > (hex ? 2u : 1u);
    }
    if (!ok) return "bad entity '&" + std::string(entity) + ";'";
    i = end;
  }
  return "";
}

}  // namespace xml_internal

// "" when `xml` is a well-formed document (an optional <?xml ...?> prolog,
// one root element), else what is wrong and where.
inline std::string XmlWellFormednessError(std::string_view xml) {
  using xml_internal::CheckText;
  using xml_internal::NameChar;
  using xml_internal::NameStart;
  size_t i = 0;
  if (xml.substr(0, 5) == "<?xml") {
    i = xml.find("?>");
    if (i == std::string_view::npos) return "unterminated prolog";
    i += 2;
  }
  std::vector<std::string> open;
  int roots = 0;
  auto at = [&](size_t pos) { return " at offset " + std::to_string(pos); };
  while (i < xml.size()) {
    const size_t lt = xml.find('<', i);
    const std::string_view text = xml.substr(i, lt == std::string_view::npos ? xml.npos : lt - i);
    if (open.empty() && text.find_first_not_of(" \t\r\n") != std::string_view::npos) {
      return "text outside the root element" + at(i);
    }
    if (std::string error = CheckText(text); !error.empty()) return error + at(i);
    if (lt == std::string_view::npos) break;
    i = lt + 1;
    const bool closing = i < xml.size() && xml[i] == '/';
    if (closing) ++i;
    if (i >= xml.size() || !NameStart(xml[i])) return "bad tag name" + at(i);
    const size_t name_start = i;
    while (i < xml.size() && NameChar(xml[i])) ++i;
    const std::string name(xml.substr(name_start, i - name_start));
    if (closing) {
      while (i < xml.size() && std::isspace(static_cast<unsigned char>(xml[i]))) ++i;
      if (i >= xml.size() || xml[i] != '>') return "bad closing tag" + at(i);
      ++i;
      if (open.empty() || open.back() != name) return "mismatched </" + name + ">" + at(i);
      open.pop_back();
      continue;
    }
    std::set<std::string> attributes;
    while (true) {
      const size_t before = i;
      while (i < xml.size() && std::isspace(static_cast<unsigned char>(xml[i]))) ++i;
      if (i >= xml.size()) return "unterminated tag <" + name + ">";
      if (xml[i] == '>' || (xml[i] == '/' && i + 1 < xml.size() && xml[i + 1] == '>')) break;
      if (i == before || !NameStart(xml[i])) return "bad attribute in <" + name + ">" + at(i);
      const size_t attr_start = i;
      while (i < xml.size() && NameChar(xml[i])) ++i;
      const std::string attr(xml.substr(attr_start, i - attr_start));
      if (!attributes.insert(attr).second) return "duplicate attribute " + attr + at(i);
      if (i + 1 >= xml.size() || xml[i] != '=' || (xml[i + 1] != '"' && xml[i + 1] != '\'')) {
        return "attribute " + attr + " without a quoted value" + at(i);
      }
      const char quote = xml[i + 1];
      const size_t value_end = xml.find(quote, i + 2);
      if (value_end == std::string_view::npos) return "unterminated attribute " + attr;
      if (std::string error = CheckText(xml.substr(i + 2, value_end - i - 2)); !error.empty()) {
        return error + " (attribute " + attr + ")" + at(i);
      }
      i = value_end + 1;
    }
    if (open.empty() && ++roots > 1) return "more than one root element" + at(i);
    if (xml[i] == '/') {
      i += 2;
    } else {
      ++i;
      open.push_back(name);
    }
  }
  if (!open.empty()) return "unclosed <" + open.back() + ">";
  if (roots != 1) return "no root element";
  return "";
}

// Occurrences of `needle` in `haystack`.
inline int CountOf(std::string_view haystack, std::string_view needle) {
  int count = 0;
  for (size_t pos = haystack.find(needle); pos != std::string_view::npos;
       pos = haystack.find(needle, pos + needle.size())) {
    ++count;
  }
  return count;
}

}  // namespace dissect::analysis::testing

#endif  // DISSECT_ANALYSIS_NIGHTLY_JUNIT_TEST_UTIL_H_
