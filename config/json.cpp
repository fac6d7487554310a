// SPDX-License-Identifier: Apache-2.0
#include "config/json.h"

#include "config/errors.h"

#include <utility>

namespace cmswitch {

const char* json_kind_name(json_value::kind k) {
    switch (k) {
    case json_value::kind::null: return "null";
    case json_value::kind::boolean: return "true or false";
    case json_value::kind::number: return "a number";
    case json_value::kind::string: return "a string";
    case json_value::kind::array: return "a list";
    case json_value::kind::object: return "a section";
    }
    return "?";
}

namespace {

// RFC 8259 JSON, nested at most max_json_depth deep (a deeper file is refused, not recursed into until the stack
// runs out), a key at most once per object.
class json_parser {
public:
    json_parser(const std::string& text, const std::string& file) : m_s(text), m_file(file) {}

    json_value parse() {
        skip_space();
        json_value v = value(0);
        skip_space();
        if (m_i < m_s.size())
            fail("unexpected text after the end of the JSON value");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& why) const {
        int line = 1, col = 1;
        for (size_t k = 0; k < m_i && k < m_s.size(); ++k) {
            if (m_s[k] == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
        }
        throw config_error(m_file + ": not valid JSON: " + why + " at line " + std::to_string(line) + ", column " +
                           std::to_string(col));
    }
    int line_here() const { return m_line; }
    void skip_space() {
        for (; m_i < m_s.size(); ++m_i) {
            const char c = m_s[m_i];
            if (c == '\n')
                ++m_line;
            else if (c != ' ' && c != '\t' && c != '\r')
                break;
        }
    }
    bool literal(const char* word) {
        const std::string w(word);
        if (m_s.compare(m_i, w.size(), w) != 0)
            return false;
        m_i += w.size();
        return true;
    }

    json_value value(int depth) {
        if (m_i >= m_s.size())
            fail("the text ends where a value was expected");
        json_value v;
        v.line = line_here();
        const char c = m_s[m_i];
        if (c == '{' || c == '[') {
            if (depth >= max_json_depth)
                fail("nested more than " + std::to_string(max_json_depth) + " deep");
            return c == '{' ? object(depth + 1) : array(depth + 1);
        }
        if (c == '"') {
            v.type = json_value::kind::string;
            v.text = string();
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            v.type = json_value::kind::number;
            v.text = number();
        } else if (literal("true")) {
            v.type = json_value::kind::boolean;
            v.text = "true";
        } else if (literal("false")) {
            v.type = json_value::kind::boolean;
            v.text = "false";
        } else if (literal("null")) {
            v.type = json_value::kind::null;
        } else {
            fail(std::string("unexpected character '") + c + "'");
        }
        return v;
    }

    json_value object(int depth) {
        json_value v;
        v.type = json_value::kind::object;
        v.line = line_here();
        ++m_i;   // '{'
        skip_space();
        if (m_i < m_s.size() && m_s[m_i] == '}') {
            ++m_i;
            return v;
        }
        for (;;) {
            skip_space();
            if (m_i >= m_s.size() || m_s[m_i] != '"')
                fail("a key (a string in double quotes) was expected");
            const int line = line_here();
            std::string key = string();
            for (const auto& m : v.members)
                if (m.key == key)
                    fail("key '" + key + "' is given twice in one section (lines " + std::to_string(m.line) + " and " +
                         std::to_string(line) + ")");
            skip_space();
            if (m_i >= m_s.size() || m_s[m_i] != ':')
                fail("':' was expected after key '" + key + "'");
            ++m_i;
            skip_space();
            v.members.push_back({std::move(key), line, value(depth)});
            skip_space();
            if (m_i < m_s.size() && m_s[m_i] == ',') {
                ++m_i;
                continue;
            }
            if (m_i < m_s.size() && m_s[m_i] == '}') {
                ++m_i;
                return v;
            }
            fail("',' or '}' was expected");
        }
    }

    json_value array(int depth) {
        json_value v;
        v.type = json_value::kind::array;
        v.line = line_here();
        ++m_i;   // '['
        skip_space();
        if (m_i < m_s.size() && m_s[m_i] == ']') {
            ++m_i;
            return v;
        }
        for (;;) {
            skip_space();
            v.items.push_back(value(depth));
            skip_space();
            if (m_i < m_s.size() && m_s[m_i] == ',') {
                ++m_i;
                continue;
            }
            if (m_i < m_s.size() && m_s[m_i] == ']') {
                ++m_i;
                return v;
            }
            fail("',' or ']' was expected");
        }
    }

    std::string number() {
        const size_t start = m_i;
        auto digits = [this] {
            const size_t from = m_i;
            while (m_i < m_s.size() && m_s[m_i] >= '0' && m_s[m_i] <= '9')
                ++m_i;
            return m_i - from;
        };
        if (m_s[m_i] == '-')
            ++m_i;
        if (m_i < m_s.size() && m_s[m_i] == '0') {
            ++m_i;
            if (m_i < m_s.size() && m_s[m_i] >= '0' && m_s[m_i] <= '9')
                fail("a number may not start with 0 (write 10, not 010)");
        } else if (digits() == 0) {
            fail("a digit was expected");
        }
        if (m_i < m_s.size() && m_s[m_i] == '.') {
            ++m_i;
            if (digits() == 0)
                fail("a digit was expected after '.'");
        }
        if (m_i < m_s.size() && (m_s[m_i] == 'e' || m_s[m_i] == 'E')) {
            ++m_i;
            if (m_i < m_s.size() && (m_s[m_i] == '+' || m_s[m_i] == '-'))
                ++m_i;
            if (digits() == 0)
                fail("a digit was expected in the exponent");
        }
        return m_s.substr(start, m_i - start);
    }

    unsigned hex4() {
        if (m_i + 4 > m_s.size())
            fail("\\u needs four hex digits");
        unsigned v = 0;
        for (int k = 0; k < 4; ++k) {
            const char h = m_s[m_i++];
            v <<= 4;
            if (h >= '0' && h <= '9')
                v |= static_cast<unsigned>(h - '0');
            else if (h >= 'a' && h <= 'f')
                v |= static_cast<unsigned>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F')
                v |= static_cast<unsigned>(h - 'A' + 10);
            else
                fail("\\u needs four hex digits");
        }
        return v;
    }
    static void utf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }

    std::string string() {
        ++m_i;   // '"'
        std::string out;
        for (;;) {
            if (m_i >= m_s.size())
                fail("a string is not closed");
            const char c = m_s[m_i++];
            if (c == '"')
                return out;
            if (static_cast<unsigned char>(c) < 0x20)
                fail("a control character inside a string (write \\n, \\t)");
            if (c != '\\') {
                out += c;
                continue;
            }
            if (m_i >= m_s.size())
                fail("a string is not closed");
            const char e = m_s[m_i++];
            switch (e) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                unsigned cp = hex4();
                if (cp >= 0xD800 && cp < 0xDC00) {
                    if (m_i + 2 > m_s.size() || m_s[m_i] != '\\' || m_s[m_i + 1] != 'u')
                        fail("a lone UTF-16 surrogate");
                    m_i += 2;
                    const unsigned lo = hex4();
                    if (lo < 0xDC00 || lo >= 0xE000)
                        fail("a lone UTF-16 surrogate");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                } else if (cp >= 0xDC00 && cp < 0xE000) {
                    fail("a lone UTF-16 surrogate");
                }
                utf8(out, cp);
                break;
            }
            default: fail(std::string("unknown escape '\\") + e + "'");
            }
        }
    }

    const std::string& m_s;
    const std::string& m_file;
    size_t m_i = 0;
    int m_line = 1;   // of m_i (strings hold no raw line breaks)
};

}   // namespace

json_value parse_json(const std::string& text, const std::string& file) {
    return json_parser(text, file).parse();
}

}   // namespace cmswitch
