// A shell script read as text: statements, then words, then expansions, each character keeping
// the file, line and column it was written at. This file is the reader: assignments, if/else,
// and the commands a run would meet.

#include "shellscript.h"

#include <algorithm>

#include "shellarithmetic.h"
#include "shellconditions.h"
#include "shellexpansion.h"
#include "shelllimits.h"
#include "shellwords.h"
#include "text.h"

namespace cs {

namespace {

using shell::isNameChar;
using shell::isNameStart;
using shell::LimitExceeded;
using shell::Pos;
using shell::PosText;
using shell::Statement;
using shell::Truth;
using shell::Variable;

size_t bytesOf(const std::vector<PosText>& words)
{
    size_t bytes = 0;
    for (const PosText& w : words)
        bytes += w.text.size();
    return bytes;
}

class ScriptReader {
public:
    explicit ScriptReader(ImportReport& report)
        : m_report(report)
        , m_expander(m_files, report)
    {
    }

    // False when the file was refused for a limit: nothing after it is read.
    bool read(const SourceText& source)
    {
        m_files.push_back(source.file);
        const int file = int(m_files.size()) - 1;
        if (source.text.size() > shell::kMaxScriptBytes) {
            m_report.error({source.file, 0, 0, ""},
                           withThousands(int64_t(source.text.size())) + " bytes: more than the " +
                               withThousands(int64_t(shell::kMaxScriptBytes)) +
                               " bytes (1 MiB) a launch script is read up to");
            return false;
        }
        const std::vector<Statement> statements = shell::splitStatements(source.text, file);
        for (const Statement& s : statements) {
            try {
                statement(s);
            } catch (const LimitExceeded& limit) {
                m_report.error(place(s.text.first()), limit.message);
                return false;
            }
        }
        m_frames.clear(); // an if left open ends with its file
        return true;
    }

    ShellScript result() const
    {
        ShellScript script;
        script.commands = m_commands;
        for (const std::string& name : m_expander.order()) {
            const PosText value = m_expander.find(name)->joined();
            script.variables.push_back({name, value.text, place(value.first())});
        }
        return script;
    }

private:
    SourcePlace place(Pos p) const { return shell::placeOf(p, m_files); }

    bool active() const { return m_frames.empty() || m_frames.back().active; }

    // --- statements --------------------------------------------------------------------------

    void statement(const Statement& s)
    {
        std::vector<PosText> words = shell::rawWords(s.text);
        if (s.sbatch) {
            if (active() && !words.empty())
                addCommand(words, true);
            return;
        }
        static const std::vector<std::string> kOpeners{"then", "do", "{", "}", "!", "done", "esac"};
        size_t first = 0;
        for (; first < words.size(); ++first) {
            const std::string& w = words[first].text;
            if (w == "else") {
                elseBranch();
            } else if (w == "fi") {
                if (!m_frames.empty())
                    m_frames.pop_back();
            } else if (std::find(kOpeners.begin(), kOpeners.end(), w) == kOpeners.end()) {
                break;
            }
        }
        words.erase(words.begin(), words.begin() + long(first));
        if (words.empty())
            return;
        const std::string& head = words.front().text;
        if (head == "if" || head == "elif") {
            const std::vector<PosText> test(words.begin() + 1, words.end());
            head == "if" ? ifBranch(test, words.front()) : elifBranch(test, words.front());
            return;
        }
        static const std::vector<std::string> kLoops{"for",  "while",  "until",
                                                     "case", "select", "function"};
        if (!active() || std::find(kLoops.begin(), kLoops.end(), head) != kLoops.end() ||
            head.ends_with("()"))
            return;
        // A list "a && b | c": each simple command on its own.
        std::vector<PosText> simple;
        for (PosText& w : words) {
            if (shell::isListOperator(w)) {
                simpleCommand(simple);
                simple.clear();
            } else {
                simple.push_back(std::move(w));
            }
        }
        simpleCommand(simple);
    }

    void simpleCommand(const std::vector<PosText>& written)
    {
        std::vector<PosText> words; // without redirections and their targets
        for (size_t i = 0; i < written.size(); ++i) {
            if (shell::isRedirection(written[i]))
                ++i;
            else
                words.push_back(written[i]);
        }
        if (words.empty())
            return;
        static const std::vector<std::string> kDeclarations{"export", "declare", "local",
                                                            "readonly", "typeset"};
        size_t k = 0;
        const bool declaration = std::find(kDeclarations.begin(), kDeclarations.end(),
                                           words[0].text) != kDeclarations.end();
        if (declaration) {
            k = 1;
            while (k < words.size() && words[k].text.starts_with("-"))
                ++k;
        }
        while (k < words.size() && assign(words[k]))
            ++k;
        if (declaration || k == words.size())
            return;
        const std::vector<PosText> command(words.begin() + long(k), words.end());
        if (command[0].text == "source" || command[0].text == ".") {
            m_report.note(place(command[0].first()),
                          "'" + command[0].text +
                              "' is not followed; name the sourced file as an earlier FILE");
            return;
        }
        addCommand(command, false);
    }

    void addCommand(const std::vector<PosText>& raw, bool sbatch)
    {
        std::vector<PosText> words;
        size_t bytes = 0;
        for (const PosText& w : raw)
            addFields(m_expander.expand(w, true), words, bytes);
        if (!words.empty())
            addExpanded(words, raw.front().first(), sbatch, 0);
    }

    // Appends `fields` to a command's words, whose bytes `bytes` counts, within
    // kMaxCommandBytes.
    static void addFields(std::vector<PosText> fields, std::vector<PosText>& words, size_t& bytes)
    {
        for (PosText& field : fields) {
            bytes += field.text.size();
            words.push_back(std::move(field));
        }
        if (bytes > shell::kMaxCommandBytes)
            throw LimitExceeded{"a command of more than " +
                                withThousands(int64_t(shell::kMaxCommandBytes)) +
                                " bytes: a launch command is a few kilobytes"};
    }

    // "bash -c STRING": STRING's words continue the command (srun ... bash -c "python ...").
    void addExpanded(const std::vector<PosText>& words, Pos start, bool sbatch, int depth)
    {
        for (size_t i = 0; depth < 4 && i + 2 < words.size(); ++i) {
            const std::string& w = words[i].text;
            const std::string base = w.substr(w.find_last_of('/') + 1);
            if ((base != "bash" && base != "sh" && base != "zsh" && base != "dash") ||
                words[i + 1].text != "-c")
                continue;
            const std::vector<PosText> outer(words.begin(), words.begin() + long(i));
            std::vector<PosText> simple;
            for (PosText& inner : shell::rawWords(words[i + 2])) {
                if (!shell::isListOperator(inner)) {
                    simple.push_back(std::move(inner));
                    continue;
                }
                addInner(outer, simple, start, sbatch, depth);
                simple.clear();
            }
            addInner(outer, simple, start, sbatch, depth);
            return;
        }
        if (m_commands.size() == shell::kMaxCommands)
            throw LimitExceeded{"more than " + withThousands(int64_t(shell::kMaxCommands)) +
                                " commands: a launch script runs a few dozen"};
        ShellCommand command;
        for (const PosText& w : words)
            command.words.push_back({w.text, place(w.first())});
        command.place = place(start);
        command.sbatchDirective = sbatch;
        m_commands.push_back(std::move(command));
    }

    void addInner(const std::vector<PosText>& outer, const std::vector<PosText>& raw, Pos start,
                  bool sbatch, int depth)
    {
        // Each command of the string repeats the words before "bash -c".
        m_expander.chargeCopy(outer);
        std::vector<PosText> words = outer;
        size_t bytes = bytesOf(outer);
        for (const PosText& w : raw) {
            if (!shell::isRedirection(w) && !shell::isOperatorWord(w))
                addFields(m_expander.expand(w, true), words, bytes);
        }
        if (words.size() > outer.size())
            addExpanded(words, start, sbatch, depth + 1);
    }

    // --- assignments -------------------------------------------------------------------------

    // NAME=value, NAME+=value, NAME=( ... ), NAME[i]=value; false when the word is none.
    bool assign(const PosText& word)
    {
        const std::string& t = word.text;
        if (t.empty() || !isNameStart(t[0]))
            return false;
        size_t i = 1;
        while (i < t.size() && isNameChar(t[i]))
            ++i;
        const std::string name = t.substr(0, i);
        std::optional<int64_t> index;
        if (i < t.size() && t[i] == '[') {
            const size_t close = t.find(']', i);
            if (close == std::string::npos)
                return false;
            index = shell::parseInteger(t.substr(i + 1, close - i - 1));
            i = close + 1;
        }
        const bool append = t.compare(i, 2, "+=") == 0;
        if (!append && (i >= t.size() || t[i] != '='))
            return false;
        const PosText value = word.slice(i + (append ? 2 : 1), t.size());
        Variable& v = m_expander.variable(name);
        if (value.text.size() >= 2 && value.text.front() == '(' && value.text.back() == ')') {
            // Expanded before it is assigned: ARGS=("${ARGS[@]}" --more) keeps the old elements.
            Variable array{append ? v.elements : std::vector<PosText>{}, true};
            for (const PosText& raw : shell::rawWords(value.slice(1, value.text.size() - 1))) {
                for (PosText& field : m_expander.expand(raw, true))
                    array.elements.push_back(std::move(field));
                shell::Expander::checkValue(name, array);
            }
            v = std::move(array);
            return true;
        }
        PosText text = m_expander.joinedExpansion(value);
        if (index && *index >= 0 && size_t(*index) < shell::kMaxArrayElements) {
            v.array = true;
            if (v.elements.size() <= size_t(*index))
                v.elements.resize(size_t(*index) + 1);
            v.elements[size_t(*index)] = std::move(text);
        } else if (append && !v.elements.empty()) {
            v.elements.front().append(text);
        } else {
            v.elements.assign(1, std::move(text));
        }
        shell::Expander::checkValue(name, v);
        return true;
    }

    // --- if / elif / else --------------------------------------------------------------------

    struct Frame {
        bool parentActive = true;
        bool active = true;
        bool taken = false;
    };

    void ifBranch(const std::vector<PosText>& test, const PosText& keyword)
    {
        const bool parent = active();
        const bool take = parent && decide(test, keyword);
        m_frames.push_back({parent, take, take});
    }

    void elifBranch(const std::vector<PosText>& test, const PosText& keyword)
    {
        if (m_frames.empty())
            return;
        Frame& f = m_frames.back();
        f.active = !f.taken && f.parentActive && decide(test, keyword);
        f.taken = f.taken || f.active;
    }

    void elseBranch()
    {
        if (m_frames.empty())
            return;
        Frame& f = m_frames.back();
        f.active = !f.taken && f.parentActive;
        f.taken = true;
    }

    bool decide(const std::vector<PosText>& test, const PosText& keyword)
    {
        const Truth t = condition(test);
        if (t != Truth::Unknown)
            return t == Truth::True;
        std::string text;
        for (const PosText& w : test)
            text += (text.empty() ? "" : " ") + w.text;
        m_report.note(place(keyword.first()),
                      "the test \"" + printable(text) +
                          "\" needs the script to run; its branch is read as if true");
        return true;
    }

    Truth condition(const std::vector<PosText>& words)
    {
        Truth result = Truth::True;
        std::string op = "&&";
        std::vector<PosText> group;
        auto combine = [&] {
            const Truth g = test(group);
            result = op == "&&" ? shell::both(result, g) : shell::either(result, g);
            group.clear();
        };
        for (const PosText& w : words) {
            if (w.text == "&&" || w.text == "||") {
                combine();
                op = w.text;
            } else {
                group.push_back(w);
            }
        }
        combine();
        return result;
    }

    Truth test(const std::vector<PosText>& words)
    {
        bool negate = false;
        size_t from = 0;
        for (; from < words.size() && words[from].text == "!"; ++from)
            negate = !negate;
        if (from == words.size())
            return Truth::Unknown;
        const std::string& open = words[from].text;
        if (open != "[" && open != "[[" && open != "test")
            return Truth::Unknown; // a command's exit status
        size_t to = words.size();
        if (to > from + 1 && (words[to - 1].text == "]" || words[to - 1].text == "]]"))
            --to;
        std::vector<std::string> args;
        for (size_t i = from + 1; i < to; ++i) {
            const std::string value = m_expander.joinedExpansion(words[i]).text;
            if (value.find('$') != std::string::npos || value.find('`') != std::string::npos)
                return Truth::Unknown;
            args.push_back(value);
        }
        const Truth t = shell::evaluateTest(args);
        if (!negate || t == Truth::Unknown)
            return t;
        return t == Truth::True ? Truth::False : Truth::True;
    }

    ImportReport& m_report;
    std::vector<std::string> m_files;
    shell::Expander m_expander;
    std::vector<Frame> m_frames;
    std::vector<ShellCommand> m_commands;
};

} // namespace

ShellScript readShellScripts(const std::vector<SourceText>& sources, ImportReport& report)
{
    ScriptReader reader(report);
    for (const SourceText& source : sources) {
        if (!reader.read(source))
            break;
    }
    return reader.result();
}

} // namespace cs
