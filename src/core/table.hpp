// One table of a game without contract play (Three-Thirteen) in C++: the rules as data, the
// game state, and the rule components of rummy_env/rules/ (deal, draw, show_hand, discard,
// rounds, scoring) with the Python engine's legal actions and effects, step for step. The
// first piece of the compiled engine (issue 47); the contract games' components follow.
// observe() writes the Observer's parts for such a game (rummy_env/observation.py).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "contract_solver.hpp"
#include "py_random.hpp"

namespace rummy {

struct RoundRules {
    int hand_size;
    int wild_rank;  // -1: no wild rank this round
};

// The part of GameRules (rummy_env/rules/spec.py) a game without contract play reads.
struct TableRules {
    int num_players;
    int num_suits, num_ranks;
    bool has_wild_card;
    std::vector<int> cards;           // DeckSpec.cards(): every physical card, unshuffled
    MeldRules melds;
    std::vector<int> rank_penalties;  // per rank
    std::vector<RoundRules> rounds;
    int max_turns_per_round;
};

enum Phase { kDraw = 0, kPlay = 1, kGoingDown = 2, kBuy = 3, kGameOver = 4 };

struct TableMeld {
    int owner;
    PlacedMeld meld;
    std::vector<int> cards;
};

struct State {
    int round = 0, dealer = 0, current = 0, phase = kDraw;
    std::vector<std::vector<int>> hands, known;  // per seat, the count of each face
    std::vector<int> hand_sizes, stock, discard, discard_seats, discard_counts;
    std::vector<TableMeld> table;
    std::vector<int> scores;
    std::vector<std::vector<int>> round_penalties;
    int taken_face = -1, went_out = -1, last_turns_left = 0, turns = 0;
    PyRandom rng;
};

struct RoundEnd {
    std::vector<int> penalties;
    bool game_over;
};

class Table {
public:
    explicit Table(const TableRules& rules);

    // A new game from a seed (the words of rummy_env.backend.seed_words), as Dealing.new_game.
    void reset(const std::vector<uint32_t>& seed_words);
    // Continues from `state` (a copy of the Python engine's GameState): std::invalid_argument
    // naming the first field that does not fit the rules, the table unchanged.
    void set_state(const State& state);
    // The legal action ids of the seat to act, ascending (ActionLayout's ids); computed once
    // per state.
    const std::vector<int>& legal_actions();
    bool legal_actions_known() const { return legal_known_; }
    // The seat to act (the player whose turn it is).
    int to_act() const { return state_.current; }
    bool game_over() const { return state_.phase == kGameOver; }
    // Applies a legal action (std::invalid_argument naming it otherwise, the state unchanged);
    // the round's end, if it ended.
    std::optional<RoundEnd> apply(int action);

    const State& state() const { return state_; }
    int num_actions() const { return 2 + 2 * num_faces_; }
    // The observation of `seat` (rummy_env/observation.py's Observer.encode, part for part).
    int observation_size() const;
    void observe(int seat, float* out) const;

private:
    void deal();
    void reshuffle();
    void start_turn();
    std::optional<RoundEnd> draw_stock();
    void take_from_discard();
    void put_on_discard(int face);
    std::optional<RoundEnd> go_out(int face);
    std::optional<RoundEnd> end_turn(bool going_out);
    RoundEnd end_round();
    int hand_penalty(int seat);
    std::vector<int> wild_faces() const;
    std::pair<std::vector<int>, int> split_wilds(const std::vector<int>& hand) const;

    // This thread's solver for the table's deck and meld rules: shared by every table a thread
    // plays, so that a batch of thousands holds a few solvers' memos, not thousands.
    ContractSolver& solver() const;

    TableRules rules_;
    int num_faces_, num_naturals_;
    std::vector<int> natural_values_;
    std::vector<int> copies_;  // per face, how many the deck holds
    State state_;
    bool dealt_ = false;
    std::vector<int> legal_;
    bool legal_known_ = false;
};

}  // namespace rummy
