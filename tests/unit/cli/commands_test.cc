// The CLI's table of commands: each entry adds exactly the command it names, so building only
// the command being run (commands.h) builds the right one.

#include "commands.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace frugal::cli {
namespace {

TEST(Commands, EachEntryAddsExactlyTheCommandItNames) {
  std::set<std::string> names;
  for (const Command& command : Commands()) {
    CLI::App app;
    GlobalOptions global;
    Action action;
    command.add(app, global, action);
    const std::vector<CLI::App*> added = app.get_subcommands([](CLI::App*) { return true; });
    ASSERT_EQ(added.size(), 1u) << command.name;
    EXPECT_EQ(added.front()->get_name(), command.name);
    EXPECT_TRUE(names.insert(std::string(command.name)).second) << command.name;
  }
}

TEST(Commands, AWordNamingACommandAddsItAloneAndAnyOtherWordAddsEvery) {
  const auto added = [](std::string_view word) {
    CLI::App app;
    GlobalOptions global;
    Action action;
    RegisterCommands(app, global, action, word);
    return app.get_subcommands([](CLI::App*) { return true; }).size();
  };
  EXPECT_EQ(added("plan"), 1u);
  EXPECT_EQ(added("queue"), 1u);
  EXPECT_EQ(added(""), Commands().size());
  EXPECT_EQ(added("plna"), Commands().size());
}

}  // namespace
}  // namespace frugal::cli
